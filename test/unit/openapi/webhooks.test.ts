import { buildOpenApiDocument } from '../../../tools/openapi/document.js';
import { webhookEventComponent } from '../../../tools/openapi/webhook-names.js';
import { EXAMPLE_SECRET, webhookExampleBody } from '../../../tools/openapi/webhooks.js';
import { WEBHOOK_EVENT_BODIES, WEBHOOK_EVENT_TYPES, webhookSignature, type WebhookEventType } from '../../../lambdas/domain/webhooks.js';
import { webhookEventMessage } from '../../../lambdas/events/webhook-events.js';
import { OpenApiValidator } from '../../support/openapi-validator.js';

type Json = Record<string, any>;

const document = buildOpenApiDocument() as Json;
const validator = new OpenApiValidator(document);
/** Every event type the worker delivers: it refuses a queued message of any other type. */
const delivered = webhookEventMessage.shape.eventType.options;

describe("the OpenAPI document's webhooks", () => {
  it('documents every event type the service delivers, and no other', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...delivered].sort());
    expect([...delivered].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });

  it.each(delivered)('documents %s as a signed POST whose example its own schema and the zod schema accept', (type: WebhookEventType) => {
    // Prepare
    const post = document.webhooks[type].post;
    const media = post.requestBody.content['application/json'];
    const headers: Record<string, Json> = Object.fromEntries((post.parameters as Json[]).map((parameter) => [parameter.name, parameter]));

    // Assess
    expect(media.schema).toEqual({ $ref: `#/components/schemas/${webhookEventComponent(type)}` });
    expect(media.example).toEqual(JSON.parse(webhookExampleBody(type)));
    expect(validator.schemaErrors(media.schema, media.example)).toEqual([]);
    expect(WEBHOOK_EVENT_BODIES[type].safeParse(media.example).error).toBeUndefined();
    expect(media.example).toMatchObject({ event_type: type, event_id: expect.stringMatching(new RegExp(`^${type}-`)) });
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(Object.values(headers).every((header) => header.in === 'header' && header.required === true)).toBe(true);
    expect(headers['webhook-id']!.example).toBe(media.example.event_id);
    expect(headers['webhook-signature']!.example).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it("refuses a body of another event's type, a body without its id, and one with a field the event does not have", () => {
    const body = JSON.parse(webhookExampleBody('BUYBOX_WON')) as Json;
    const schema = { $ref: `#/components/schemas/${webhookEventComponent('BUYBOX_WON')}` };
    expect(validator.schemaErrors(schema, { ...body, event_type: 'BUYBOX_LOST' })).not.toEqual([]);
    expect(validator.schemaErrors(schema, { ...body, event_id: undefined })).not.toEqual([]);
    expect(validator.schemaErrors(schema, { ...body, event_data: { ...body.event_data, extra: 1 } })).not.toEqual([]);
  });

  it("signs each example's headers as the worker would", () => {
    for (const type of delivered) {
      const post = document.webhooks[type].post;
      const example = (name: string) => (post.parameters as Json[]).find((parameter) => parameter.name === name)!.example as string;
      const body = webhookExampleBody(type);
      expect(example('webhook-signature')).toBe(webhookSignature(EXAMPLE_SECRET, example('webhook-id'), Number(example('webhook-timestamp')), body));
    }
  });
});
