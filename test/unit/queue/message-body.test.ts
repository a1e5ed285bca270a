import { z } from 'zod';
import { parseMessageBody, requireMessageBody } from '../../../lambdas/queue/message-body.js';

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

describe('requireMessageBody', () => {
  it('gives the message a body of its schema holds', () => {
    expect(requireMessageBody(message, '{"kind":"tick","at":"2026-11-27T00:00:00Z"}')).toEqual({ kind: 'tick', at: '2026-11-27T00:00:00Z' });
  });

  it('throws for a body of another shape, naming the fields but never echoing the body', () => {
    expect(() => requireMessageBody(message, '{"kind":"offer","secret":"s3cr3t"}')).toThrow(/kind, at/);
    expect(() => requireMessageBody(message, '{"kind":"offer","secret":"s3cr3t"}')).not.toThrow(/s3cr3t/);
    expect(() => requireMessageBody(message, '{"kind":')).toThrow(/\(body\)/);
  });
});
