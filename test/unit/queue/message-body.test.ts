import { z } from 'zod';
import { parseMessageBody } from '../../../lambdas/queue/message-body.js';

const message = z.object({ kind: z.literal('tick'), at: z.string() });

describe('parseMessageBody', () => {
  it('gives the message a body of its schema holds', () => {
    expect(parseMessageBody(message, '{"kind":"tick","at":"2026-11-27T00:00:00Z"}')).toEqual({
      success: true,
      data: { kind: 'tick', at: '2026-11-27T00:00:00Z' },
    });
  });

  it.each([
    ['not JSON', '{"kind":'],
    ['of another shape', '{"kind":"offer"}'],
    ['empty', ''],
  ])('fails a body %s, without throwing', (_, body) => {
    expect(parseMessageBody(message, body).success).toBe(false);
  });
});
