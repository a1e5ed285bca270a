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

/**
 * The same check for a consumer whose messages only the service writes (the change flow's):
 * a body that fails it is an error of the service, so the message fails, is retried and then
 * dead-lettered where the alarm shows it, rather than dropped. The body is not echoed.
 */
export const requireMessageBody = <S extends z.ZodType>(schema: S, body: string): z.output<S> => {
  const parsed = parseMessageBody(schema, body);
  if (!parsed.success)
    throw new Error(`A queue message does not have its schema's shape: ${parsed.error.issues.map((issue) => issue.path.join('.') || '(body)').join(', ')}`);
  return parsed.data;
};
