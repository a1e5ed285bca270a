import * as z from 'zod';

/** A message to the import worker: a job of one tenant waiting to be (or being) processed. */
export const importJobMessage = z.object({ clientId: z.string().min(1), importId: z.int().positive() });
export type ImportJobMessage = z.infer<typeof importJobMessage>;
