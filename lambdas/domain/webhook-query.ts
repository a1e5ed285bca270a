import * as z from 'zod';

/** `GET /v1/webhooks/{id}/deliveries`: how many of the latest deliveries. */
export const webhookDeliveriesQuery = z.strictObject({
  _limit: z
    .string()
    .regex(/^[1-9]\d{0,2}$/, 'must be an integer from 1 to 100')
    .transform(Number)
    .refine((n) => n <= 100, 'must be an integer from 1 to 100')
    .optional(),
});
