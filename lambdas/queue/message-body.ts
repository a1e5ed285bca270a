import type { z } from 'zod';

const jsonOrUndefined = (body: string): unknown => {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * A queue message's body checked against its schema. A body that is not JSON fails the check
 * like a body of the wrong shape: the consumer logs and drops it (a retry would not mend it).
 */
export const parseMessageBody = <S extends z.ZodType>(schema: S, body: string): z.ZodSafeParseResult<z.output<S>> => schema.safeParse(jsonOrUndefined(body));
