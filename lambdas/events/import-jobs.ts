import * as z from 'zod';

/** A message to the import worker: a job of one tenant waiting to be (or being) processed. */
export const importJobMessage = z.object({ clientId: z.string().min(1), importId: z.int().positive() });
export type ImportJobMessage = z.infer<typeof importJobMessage>;

/**
 * Deliveries of a job the worker makes before it gives up and fails the job visibly. One less
 * than the queue's maxReceiveCount: the last delivery is kept to mark the job failed, so even a
 * worker killed on every attempt (a timeout) leaves no job `running` forever.
 */
export const MAX_IMPORT_ATTEMPTS = 4;
