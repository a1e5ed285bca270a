import { createWebhookBody, WEBHOOK_EVENT_TYPES } from '../../../../lambdas/domain/webhooks.js';

describe('the event types a webhook may subscribe to', () => {
  it('are the eight the docs describe', () => {
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual([
      'BUYBOX_LOST',
      'BUYBOX_WON',
      'CONNECTION_STATUS_CHANGED',
      'IMPORT_COMPLETED',
      'PRICE_CHANGE_APPLIED',
      'PRICE_CHANGE_FAILED',
      'PRICE_WAR_DETECTED',
      'REPRICER_PRICE_CHANGED',
    ]);
  });

  it('accepts each new type alone, and every type at once', () => {
    for (const type of ['PRICE_CHANGE_APPLIED', 'PRICE_CHANGE_FAILED', 'BUYBOX_WON', 'BUYBOX_LOST', 'PRICE_WAR_DETECTED']) {
      expect(createWebhookBody.safeParse({ url: 'https://example.com/hooks', event_types: [type] }).success).toBe(true);
    }
    expect(createWebhookBody.safeParse({ url: 'https://example.com/hooks', event_types: [...WEBHOOK_EVENT_TYPES] }).success).toBe(true);
  });

  it('refuses an unknown type and a repeated one', () => {
    expect(createWebhookBody.safeParse({ url: 'https://example.com/hooks', event_types: ['BUYBOX_CHANGED'] }).success).toBe(false);
    expect(createWebhookBody.safeParse({ url: 'https://example.com/hooks', event_types: ['BUYBOX_WON', 'BUYBOX_WON'] }).success).toBe(false);
  });
});
