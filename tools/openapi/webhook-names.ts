import type { WebhookEventType } from '../../lambdas/domain/webhooks.js';

/** The component name of an event type's body: `REPRICER_PRICE_CHANGED` is `RepricerPriceChangedEvent`. */
export const webhookEventComponent = (type: WebhookEventType): string =>
  `${type
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;
