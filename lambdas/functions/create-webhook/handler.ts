import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { createWebhookBody, MAX_WEBHOOKS_PER_CLIENT } from '../../domain/webhooks.js';
import { createWebhook } from '../../data/webhooks/webhooks.js';
import { conflict, validationFailed } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { idempotentRequests } from '../../http/idempotency.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';
import { resolveDestination, systemResolver, type Resolver } from '../../webhooks/destination.js';
import { sealWebhookSecret } from '../../webhooks/secrets.js';

/** A fresh signing secret: 32 random bytes, prefixed so a leaked one is recognizable. */
const newSecret = () => `whsec_${randomBytes(32).toString('hex')}`;

/**
 * POST /v1/webhooks: 201 with the webhook and its signing secret, the only response that ever
 * shows it; it is stored sealed. The URL is refused (400) unless every address its host resolves to is allowed.
 */
export const createWebhookRoute =
  (resolve: Resolver = systemResolver) =>
  async (event: APIGatewayProxyEvent) => {
    const tenant = tenantOf(event);
    const body = parseOrThrow(createWebhookBody, event.body);
    const destination = await resolveDestination(body.url, resolve);
    if (!destination.ok) throw validationFailed([{ field: 'url', message: destination.message }]);
    const secret = newSecret();
    const sealedSecret = await sealWebhookSecret(tenant.clientId, secret);
    const result = await createWebhook(tenant.clientId, { url: body.url, event_types: body.event_types, sealedSecret });
    if (!result.created) throw conflict(`A client may have at most ${MAX_WEBHOOKS_PER_CLIENT} webhooks; delete one first.`);
    const { record } = result.webhook;
    return json(201, { ...record, secret }, { Location: `/v1/webhooks/${record.id}` });
  };

// A retry with the same Idempotency-Key and body answers the first webhook and its secret again, kept sealed meanwhile.
export const handler = httpHandler(createWebhookRoute(), { jsonBody: true }).use(idempotentRequests());
