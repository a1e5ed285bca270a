import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../lambdas/domain/list-parameters.js';
import { offerQueryParameters } from '../../lambdas/domain/offer-query.js';
import { priceChangeQueryParameters, repricerPriceChangeQueryParameters } from '../../lambdas/domain/price-change-query.js';
import { priceChangeFeedParameters } from '../../lambdas/domain/price-change-feed.js';
import { DEFAULT_FEED_SETTLE_MS } from '../../lambdas/config/price-change-feed.js';
import { offerRecord, priceChangeRecord, productRecord, repricerRecord } from '../../lambdas/domain/records.js';
import { repricerQueryParameters } from '../../lambdas/domain/repricer-query.js';
import { repricerPatchFields, updateRepricerBody } from '../../lambdas/domain/update-repricer.js';
import { DEFAULT_STATS_RANGE_HOURS, MAX_STATS_RANGE_DAYS, statsQueryParameters } from '../../lambdas/domain/repricer-stats.js';
import { webhookDeliveriesQuery } from '../../lambdas/domain/webhook-query.js';
import { importNotFound, offerNotFound, priceChangeNotFound, productNotFound } from '../../lambdas/http/not-found.js';
import {
  createImportParameters,
  importJobRecord,
  importQueryParameters,
  MAX_IMPORT_LINES,
  MAX_LINE_BYTES,
  MAX_LISTED_ERRORS,
} from '../../lambdas/domain/import-jobs.js';
import { IMPORT_TOO_LARGE, NOT_NDJSON } from '../../lambdas/http/import-problems.js';
import { conflict, HttpProblem, notFound, validationFailed } from '../../lambdas/http/errors.js';
import { ifMatchOf } from '../../lambdas/http/preconditions.js';
import type { Problem } from '../../lambdas/http/problem.js';
import {
  createRepricerExample,
  importBodyExample,
  importJobExample,
  importsPageExample,
  offerExample,
  offersPageExample,
  appliedPriceChangeExample,
  priceChangeExample,
  priceChangesPageExample,
  productDetailExample,
  productExample,
  repricerExample,
  repricerPreviewExample,
  repricerStatsExample,
  repricersPageExample,
  updatedRepricerExample,
  updateRepricerExample,
  validationExample,
  webhookDeliveriesExample,
  webhookExample,
  createWebhookExample,
  type ProblemStatus,
} from './examples.js';
import { createWebhookBody, MAX_WEBHOOKS_PER_CLIENT, webhookRecord } from '../../lambdas/domain/webhooks.js';
import { connectionRecord, patchConnectionBody, putConnectionBody } from '../../lambdas/domain/connections.js';
import { connectorUid } from '../../lambdas/domain/records.js';
import { connectionNotFound, connectorNotFound, keyRejected, marketplaceUnavailable, syncLimited } from '../../lambdas/http/connection-route.js';
import { connectionExample, patchConnectionExample, putConnectionExample } from './examples.js';
import { webhookNotFound } from '../../lambdas/http/not-found.js';
import type { JsonSchema } from './schemas.js';
import type { HeaderName } from './responses.js';
import { EVENT_RECEIVED, EVENT_REFUSED } from '../../lambdas/functions/receive-marketplace-event/answers.js';
import { MAX_BODY_BYTES } from '../../lambdas/http/body-limit.js';

/**
 * What the route table does not know about each operation: its words, parameters, bodies and
 * the statuses it can answer. Keyed by route name, so a route without an entry here cannot be
 * documented (tools/openapi/document.ts refuses it).
 */
export type ResponseHeader = 'Location' | 'ETag' | 'Sync-Request';

export interface BodySpec {
  /** A component of tools/openapi/schemas.ts, or an inline schema. */
  readonly schema: string | JsonSchema;
  readonly example: unknown;
}

export interface ParameterSpec {
  readonly schema: z.ZodType;
  readonly description: string;
  /** Of the schema's type: a query value as the handler reads it (a list, a boolean, a number). */
  readonly example: string | number | boolean | readonly string[] | Readonly<Record<string, number>>;
}

export interface OperationSpec {
  readonly tag: 'Repricers' | 'Offers' | 'Products' | 'Price changes' | 'Imports' | 'Webhooks' | 'Connections' | 'Marketplace events' | 'Documentation';
  /** Who calls it, when not the client (`x-called-by`): a marketplace's webhooks. */
  readonly calledBy?: 'marketplace';
  readonly summary: string;
  readonly description: string;
  /** One entry per `{name}` of the route's path. */
  readonly pathParameters?: Readonly<Record<string, ParameterSpec>>;
  /** The zod object the handler parses the query with, and a description and example per key. */
  readonly query?: {
    readonly schema: z.ZodObject;
    readonly parameters: Readonly<Record<string, Omit<ParameterSpec, 'schema'>>>;
  };
  /** Accepts `If-Match` for optimistic concurrency. */
  readonly ifMatch?: boolean;
  /** Request headers of its own (text), e.g. a marketplace's signature. */
  readonly headerParameters?: readonly { readonly name: string; readonly description: string; readonly example: string; readonly required: boolean }[];
  /** JSON unless `mediaType` says otherwise. */
  readonly requestBody?: BodySpec & { readonly description: string; readonly mediaType?: string };
  readonly success: {
    readonly status: 200 | 201 | 202 | 204;
    readonly description: string;
    readonly body?: BodySpec;
    readonly headers?: readonly ResponseHeader[];
    /** A second success status with the same body and no headers (an upsert: 201 created, 200 replaced). */
    readonly alternative?: { readonly status: 200; readonly description: string };
  };
  /** Every problem status the operation can answer, beyond the 2xx. */
  readonly problems: readonly ProblemStatus[];
  /** Descriptions and examples that differ from the defaults of tools/openapi/responses.ts. */
  readonly problemOverrides?: Partial<
    Record<ProblemStatus, { readonly description?: string; readonly example?: () => Problem; readonly headers?: readonly HeaderName[] }>
  >;
}

/** Every operation that reads the table may meet DynamoDB throttling, a bug or a slow call. */
const SERVER_SIDE: readonly ProblemStatus[] = [429, 500, 503, 504];

const repricerId: ParameterSpec = { schema: repricerRecord.shape.id, description: "The repricer's `id`.", example: repricerExample.id };

const listParameters = (sortFields: string) => ({
  _limit: { description: `Page size, 1-${MAX_LIMIT}; default ${DEFAULT_LIMIT}.`, example: '20' },
  _start: { description: "0-based position of the page's first item; default 0. Past the end: an empty page with the right `meta.total`.", example: '0' },
  _sort: {
    description: `${sortFields}, optionally followed by \`:ASC\` or \`:DESC\` (direction in any case; default ASC). Ties are broken by \`id\` in the same direction.`,
    example: 'id:DESC',
  },
});

/** The 400 an `If-Match` without quotes gets, from the code that parses the header. */
const invalidIfMatchProblem = (): Problem => {
  try {
    ifMatchOf({ headers: { 'if-match': 'v3' }, multiValueHeaders: {} } as unknown as APIGatewayProxyEvent);
  } catch (error) {
    if (error instanceof HttpProblem) return error.problem;
  }
  throw new Error('An unquoted If-Match was accepted');
};

const webhookId: ParameterSpec = { schema: webhookRecord.shape.id, description: "The webhook's `id`.", example: 3 };
const webhookNotFoundText = "No webhook with this id exists for this client (unknown, another client's, or not a valid id).";

const repricerNotFoundText = "No repricer with this id exists for this client (unknown, another client's, or not a valid id).";
const ifMatchProblems = {
  400: { description: 'The body is not valid (`errors` names each field), or `If-Match` is not `*` or a list of entity tags.' },
  404: { description: repricerNotFoundText },
  409: {
    description: 'The repricer kept changing while the update was applied; retry.',
    example: () => conflict('The repricer kept changing while this update was applied; retry.').problem,
  },
  412: { description: '`If-Match` does not name the current version: read the repricer again.' },
} as const;

const priceChangeFilters = {
  ...listParameters('`id` or `created_at` (ids are given in creation order, so both give the same order)'),
  reason: { description: '`undercut`, `floor`, `ceiling` or `no_competition`: only decisions made for this reason.', example: 'undercut' },
  status: {
    description:
      '`suggested`, `pending`, `sent`, `applied`, `failed` or `superseded`: only price changes with this status now (docs/api.md, "Price change statuses").',
    example: 'suggested',
  },
  product_code: { description: "Only the decisions of this product's repricers.", example: 'DEMO-0001' },
};

const connectorParameterSpec: ParameterSpec = { schema: connectorUid, description: "The connector type's `uid`.", example: 'takealot' };
const connectionNotFoundText = "The client has no connection to this connector (none, another client's, or not a connector uid).";
const connectionNotFoundProblem = { 404: { description: connectionNotFoundText, example: () => connectionNotFound().problem } } as const;

const importNotFoundText = "No import with this id exists for this client (unknown, another client's, or not a valid id).";

export const OPERATIONS: Readonly<Record<string, OperationSpec>> = {
  CreateImport: {
    tag: 'Imports',
    summary: 'Import products, offers or repricers',
    description:
      "Accepts an NDJSON body (one JSON object a line, the fields of the CLI import's `data`; at most 4 MiB, " +
      `${MAX_IMPORT_LINES} lines and ${MAX_LINE_BYTES / 1024} KiB a line) and answers 202 with the job ` +
      'and `Location: /v1/imports/{id}`. Every line is validated first: when any line is bad, nothing is written and the job is ' +
      'created `failed`, each bad line in `errors` by number (also 202: the job is the outcome, whether validation fails now or a ' +
      'reference check fails in the worker). Otherwise the job is `pending` and a worker processes it: products are upserted by ' +
      '`code`, offers by `offer_id` (an offer names its product by `product_code`), repricers by (`product_code`, connector) with ' +
      "the validation and computed fields of `POST /v1/repricers/`. Connector types are reference data: only the operator's CLI loads them. " +
      `The job lists the first ${MAX_LISTED_ERRORS} bad lines and counts them all in \`invalid\`.`,
    query: {
      schema: createImportParameters,
      parameters: { import_type: { description: '`products`, `offers` or `repricers`: what every line of the body is.', example: 'offers' } },
    },
    requestBody: {
      description: `NDJSON: one record a line (\`Content-Type: application/x-ndjson\`), at most 4 MiB and ${MAX_IMPORT_LINES} lines.`,
      mediaType: 'application/x-ndjson',
      schema: { type: 'string' },
      example: importBodyExample,
    },
    success: {
      status: 202,
      description: 'Accepted: the job (`pending`, or `failed` with its bad lines).',
      body: { schema: 'ImportJob', example: importJobExample },
      headers: ['Location'],
    },
    problems: [400, 401, 413, 415, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description: `\`import_type\` is missing or unknown, the body is empty, not UTF-8 or longer than ${MAX_IMPORT_LINES} lines.`,
        example: () => validationExample(createImportParameters, { import_type: 'widgets' }, 'The query parameters are not valid.'),
      },
      413: { description: 'The request body exceeds 4 MiB.', example: () => IMPORT_TOO_LARGE },
      415: { description: 'The request body is not `application/x-ndjson`.', example: () => NOT_NDJSON },
    },
  },
  ListImports: {
    tag: 'Imports',
    summary: 'List import jobs',
    description: "One page of the client's import jobs of the last 90 days (the API's and the CLI's), with the exact number of matches in `meta.total`.",
    query: {
      schema: importQueryParameters,
      parameters: {
        ...listParameters('`id` or `created_at` (ids are given in creation order, so both give the same order)'),
        import_type: { description: '`products`, `offers` or `repricers`.', example: 'offers' },
        status: { description: '`pending`, `running`, `completed` or `failed`.', example: 'completed' },
      },
    },
    success: { status: 200, description: 'A page of import jobs.', body: { schema: 'ImportsPage', example: importsPageExample } },
    problems: [400, 401, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description: 'An unknown, repeated or malformed parameter; `errors` names it.',
        example: () => validationExample(importQueryParameters, { status: 'done' }, 'The query parameters are not valid.'),
      },
    },
  },
  GetImport: {
    tag: 'Imports',
    summary: 'Get an import job',
    description: 'The job with its counters: poll it until `status` is `completed` or `failed`.',
    pathParameters: { id: { schema: importJobRecord.shape.id, description: "The job's `id`.", example: importJobExample.id } },
    success: { status: 200, description: 'The import job.', body: { schema: 'ImportJob', example: importJobExample } },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: { 404: { description: importNotFoundText, example: () => importNotFound().problem } },
  },
  ListPriceChanges: {
    tag: 'Price changes',
    summary: 'List price changes',
    description:
      "One page of the client's repricing decisions (docs/repricing.md), with the exact number of matches in `meta.total`. " +
      'Decisions are kept for the retention period of the stack (90 days by default). ' +
      'To poll for changes instead, give `updated_since` (and `_limit`, nothing else): the changes updated after it, oldest update first, ' +
      'and `meta.next_cursor`, which the next request passes as `cursor` alone. A cursor names a position, not a count: changes that arrive ' +
      'or move meanwhile come after it, so a page does not drift and a poller sees each change again each time it is updated. ' +
      `Changes updated in the last ${DEFAULT_FEED_SETTLE_MS / 1000} seconds are held back, so none can appear behind a cursor already given ` +
      '(docs/repricing.md, "Polling for changes").',
    query: {
      schema: priceChangeQueryParameters.extend({
        updated_since: priceChangeFeedParameters.shape.updated_since,
        cursor: priceChangeFeedParameters.shape.cursor,
      }),
      parameters: {
        ...priceChangeFilters,
        repricer_id: { description: 'Only the decisions of this repricer.', example: '7' },
        updated_since: {
          description:
            'Polls instead of paging: the changes whose last update is strictly after this time (ISO 8601, at most milliseconds), oldest first. ' +
            'Combines with `_limit` only.',
          example: '2026-11-22T10:00:00.000Z',
        },
        cursor: {
          description: "The `meta.next_cursor` of the previous feed page (opaque, this client's only): the next page. Combines with `_limit` only.",
          example: 'eyJ2IjoxLCJ0IjoiLi4uIn0',
        },
      },
    },
    success: {
      status: 200,
      description: 'A page of price changes (`_start` pages), or a feed page when `updated_since` or `cursor` is given.',
      body: { schema: 'PriceChangesListing', example: priceChangesPageExample },
    },
    problems: [400, 401, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description:
          'An unknown, repeated or malformed parameter (`errors` names it), a feed parameter with a paging one, or a `cursor` this client was not given.',
        example: () => validationExample(priceChangeQueryParameters, { reason: 'cheaper' }, 'The query parameters are not valid.'),
      },
    },
  },
  ListRepricerPriceChanges: {
    tag: 'Price changes',
    summary: "List a repricer's price changes",
    description:
      "One page of one repricer's decisions, as `GET /v1/price-changes?repricer_id=` gives them, but a repricer that is not the client's is a 404; " +
      'with `market`, the market the repricer decides from (`unknown` with the reason when it decides nothing).',
    pathParameters: { id: repricerId },
    query: { schema: repricerPriceChangeQueryParameters, parameters: priceChangeFilters },
    success: {
      status: 200,
      description: "A page of the repricer's price changes.",
      body: {
        schema: 'RepricerPriceChangesPage',
        example: { ...priceChangesPageExample, market: { state: 'known', reason: null, read_at: '2026-11-22T10:14:02.511Z', note: null }, holds: [] },
      },
    },
    problems: [400, 401, 404, ...SERVER_SIDE],
    problemOverrides: { 404: { description: repricerNotFoundText } },
  },
  GetPriceChange: {
    tag: 'Price changes',
    summary: 'Get a price change',
    description:
      'One price change as it stands now (`status`, `sent_price`, `applied_at`), with the `explanation` of its decision ' +
      '(docs/repricing.md, "The explanation of a price change"). A price change is found by `id` a moment after it is listed.',
    pathParameters: { id: { schema: priceChangeRecord.shape.id, description: "The price change's `id`.", example: priceChangeExample.id } },
    success: { status: 200, description: 'The price change.', body: { schema: 'PriceChange', example: priceChangeExample } },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: {
      404: {
        description: "No price change with this id exists for this client (unknown, another client's, or not a valid id).",
        example: () => priceChangeNotFound().problem,
      },
    },
  },
  ApplyPriceChange: {
    tag: 'Price changes',
    summary: 'Apply a suggested price change',
    description:
      'Takes a `suggested` price change (a decision made while the connection is not live) and makes it `pending`: the sender pushes its ' +
      "price to the marketplace, whatever the connection's mode. Only a `suggested` price change can be applied, once. A price change " +
      'is found by `id` a moment after it is listed; no body.',
    pathParameters: { id: { schema: priceChangeRecord.shape.id, description: "The price change's `id`.", example: priceChangeExample.id } },
    success: { status: 200, description: 'Applied: the price change, now `pending`.', body: { schema: 'PriceChange', example: appliedPriceChangeExample } },
    problems: [401, 404, 409, ...SERVER_SIDE],
    problemOverrides: {
      404: {
        description: "No price change with this id exists for this client (unknown, another client's, or not a valid id).",
        example: () => priceChangeNotFound().problem,
      },
      409: {
        description: 'The price change is not `suggested` (already applied, sent, failed or superseded); `detail` names its status.',
        example: () => conflict(`Price change ${priceChangeExample.id} is pending: only a suggested price change can be applied.`).problem,
      },
    },
  },
  CreateRepricer: {
    tag: 'Repricers',
    summary: 'Create a repricer',
    description:
      'Creates the repricer of one product on one connector and computes `min_price`, `min_profit` and `fixed_fulfilment_fee` ' +
      '(docs/api.md, "Computed fields"). The connector is the product\'s only key of `fee_estimates`, the one named by `connector` when ' +
      "there are several, or the client's default connector when it has none. Also served at `/v1/repricers/`.",
    requestBody: { description: 'The preferences; unknown fields are refused (400).', schema: 'CreateRepricerRequest', example: createRepricerExample },
    success: {
      status: 201,
      description: 'Created: the full record, with `connector_type` and `product` nested.',
      body: { schema: 'Repricer', example: repricerExample },
      headers: ['Location', 'ETag'],
    },
    problems: [400, 401, 404, 409, 413, 415, 422, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description: 'The body is not valid JSON or not valid (`errors` names each field), or the product has several connectors and none was named.',
      },
      404: {
        description: 'No product with this `product_code` exists for this client.',
        example: () => notFound('No product with code "DEMO-999" exists for this client.').problem,
      },
      409: {
        description: 'The (product, connector) slot already has a repricer (`existing_id` names it).',
      },
      422: {
        description:
          'No positive `min_price` results (a profit larger than the price can carry), the commission is 100 % or more, `min_profit` ' +
          'exceeds `preferred_profit`.',
      },
    },
  },
  ListRepricers: {
    tag: 'Repricers',
    summary: 'List repricers',
    description: "One page of the client's repricers, with the exact number of matches in `meta.total`.",
    query: {
      schema: repricerQueryParameters,
      parameters: {
        ...listParameters('`id`, `updated_at` or `created_at`'),
        enabled: { description: '`true` or `false`: only repricers that are (or are not) enabled.', example: 'true' },
        product_code: { description: 'Only the repricers of this product.', example: productExample.code },
      },
    },
    success: { status: 200, description: 'A page of repricers.', body: { schema: 'RepricersPage', example: repricersPageExample } },
    problems: [400, 401, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description: 'An unknown, repeated or malformed parameter; `errors` names it.',
        example: () => validationExample(repricerQueryParameters, { _limit: '500' }, 'The query parameters are not valid.'),
      },
    },
  },
  GetRepricer: {
    tag: 'Repricers',
    summary: 'Get a repricer',
    description: 'The repricer, with the entity tag a later update or delete can send in `If-Match`.',
    pathParameters: { id: repricerId },
    success: { status: 200, description: 'The repricer.', body: { schema: 'Repricer', example: repricerExample }, headers: ['ETag'] },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: { 404: { description: repricerNotFoundText } },
  },
  PreviewRepricer: {
    tag: 'Repricers',
    summary: 'Preview what a repricer would decide',
    description:
      "What the repricer would decide now from the product's offers as stored, with an explanation of its target; records nothing. " +
      'A disabled repricer previews too (`enabled: false`): what it would decide once enabled.',
    pathParameters: { id: repricerId },
    query: {
      schema: repricerPatchFields,
      parameters: {
        enabled: { description: 'Override: `true` or `false`.', example: true },
        preferred_price: { description: 'Override: the ceiling; `min_price` is computed again from it, as a PATCH computes it.', example: 119 },
        preferred_profit: { description: 'Override, as in a PATCH.', example: 20 },
        min_profit: { description: 'Override, as in a PATCH: the floor follows it.', example: 5 },
        buybox_approach: { description: 'Override: another approach to try.', example: 'cheapest' },
        repricer_approach: { description: 'Override, as in a PATCH.', example: 'fixed' },
        unit_cost: { description: 'Override, as in a PATCH: with `cost_based`, the floor and ceiling follow it.', example: 62.5 },
        price_war_guard: {
          description: 'Override: the guard as JSON (`{"undercuts":3,"cooldown_minutes":60}`), or `null` (or empty) for none.',
          example: { undercuts: 3, cooldown_minutes: 60 },
        },
        exclude_seller_ids: { description: 'Override: seller ids separated by commas; empty: none excluded.', example: ['seller-a', 'seller-b'] },
        min_competitor_rating: { description: 'Override: 0-5, or `null` (or empty) for no rating filter.', example: 4 },
        competitor_stock: { description: 'Override: `any` or `in_stock`.', example: 'in_stock' },
        max_competitor_leadtime_days: { description: 'Override: whole days, or `null` (or empty) for no lead-time filter.', example: 5 },
      },
    },
    success: { status: 200, description: 'The decisions it would make, and why.', body: { schema: 'RepricerPreview', example: repricerPreviewExample } },
    problems: [400, 401, 404, 422, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description:
          'An override is unknown, repeated or not valid by the rules of `POST /v1/repricers` (`errors` names it); `product_code`, `connector` ' +
          'and the computed fields cannot be overridden.',
        example: () =>
          validationFailed([{ field: 'buybox_approach', message: 'Invalid option: expected "cheapest"' }], 'The query parameters are not valid.').problem,
      },
      404: { description: repricerNotFoundText },
      422: { description: 'With the overrides, no positive `min_price` results, or `min_profit` would exceed `preferred_profit`.' },
    },
  },
  PreviewNewRepricer: {
    tag: 'Repricers',
    summary: 'Preview what a repricer body would decide',
    description:
      'What a repricer with this body (the body of `POST /v1/repricers`) would decide now for its product, with the explanation; nothing ' +
      'is stored. The body is checked and priced as a create checks and prices it; `repricer_id` is null, and every decision counts, ' +
      'since a repricer only described has decided nothing yet.',
    requestBody: { description: 'A create body; unknown fields are refused (400).', schema: 'CreateRepricerRequest', example: createRepricerExample },
    success: {
      status: 200,
      description: 'The decisions it would make, and why.',
      body: { schema: 'RepricerPreview', example: { ...repricerPreviewExample, repricer_id: null } },
    },
    problems: [400, 401, 404, 413, 415, 422, ...SERVER_SIDE],
    problemOverrides: {
      400: { description: 'The body is not valid JSON or not valid (`errors` names each field), or the product has several connectors and none was named.' },
      404: {
        description: 'No product with this `product_code` exists for this client.',
        example: () => notFound('No product with code "DEMO-999" exists for this client.').problem,
      },
      422: { description: 'No positive `min_price` results, the commission is 100 % or more, or `min_profit` exceeds `preferred_profit`.' },
    },
  },
  GetRepricerStats: {
    tag: 'Repricers',
    summary: "A repricer's outcomes over a time range",
    description:
      'The share of the observed time its own offers held the Best Price slot (`winning`) and the Fastest Delivery slot ' +
      '(`winning_delivery`), sat at or below `min_price`, and their time-weighted average price above `min_price`, from the states ' +
      'the service recorded each time it saw them change (not sampled); and the price changes it created in the range, by status ' +
      `and reason. At most ${MAX_STATS_RANGE_DAYS} days; the range is cut at now.`,
    pathParameters: { id: repricerId },
    query: {
      schema: statsQueryParameters,
      parameters: {
        from: { description: `Start of the range (ISO 8601); default ${DEFAULT_STATS_RANGE_HOURS} hours before \`to\`.`, example: '2026-01-14T09:00:00Z' },
        to: { description: 'End of the range (ISO 8601), after `from`; default now.', example: '2026-01-15T09:00:00Z' },
      },
    },
    success: { status: 200, description: 'The outcomes.', body: { schema: 'RepricerStats', example: repricerStatsExample } },
    problems: [400, 401, 404, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description: `A time that is not ISO 8601, \`to\` not after \`from\`, \`from\` not in the past, a range over ${MAX_STATS_RANGE_DAYS} days, or an unknown or repeated parameter; \`errors\` names it.`,
        example: () => validationFailed([{ field: 'to', message: 'Must be later than from.' }], 'The query parameters are not valid.').problem,
      },
      404: { description: repricerNotFoundText },
    },
  },
  UpdateRepricer: {
    tag: 'Repricers',
    summary: 'Update a repricer',
    description:
      'Changes preferences; the computed fields are recomputed from the product as it is now. Product and connector stay. ' +
      'With `If-Match`, only the version it names is changed.',
    pathParameters: { id: repricerId },
    ifMatch: true,
    requestBody: { description: 'The fields to change; at least one.', schema: 'UpdateRepricerRequest', example: updateRepricerExample },
    success: { status: 200, description: 'The updated repricer.', body: { schema: 'Repricer', example: updatedRepricerExample }, headers: ['ETag'] },
    problems: [400, 401, 404, 409, 412, 413, 415, 422, ...SERVER_SIDE],
    problemOverrides: {
      ...ifMatchProblems,
      400: { ...ifMatchProblems[400], example: () => validationExample(updateRepricerBody, { preferred_price: 0, colour: 'red' }) },
      422: { description: 'No positive `min_price` results, or `min_profit` would exceed `preferred_profit`.' },
    },
  },
  DeleteRepricer: {
    tag: 'Repricers',
    summary: 'Delete a repricer',
    description: 'Deletes the repricer; its (product, connector) slot is free again. With `If-Match`, only the version it names is deleted.',
    pathParameters: { id: repricerId },
    ifMatch: true,
    success: { status: 204, description: 'Deleted; no body.' },
    problems: [400, 401, 404, 409, 412, ...SERVER_SIDE],
    problemOverrides: {
      ...ifMatchProblems,
      400: {
        description: '`If-Match` is not `*` or a list of entity tags.',
        example: () => invalidIfMatchProblem(),
      },
      409: {
        description: 'The repricer kept changing while the delete was applied; retry.',
        example: () => conflict('The repricer kept changing while this delete was applied; retry.').problem,
      },
    },
  },
  ListOffers: {
    tag: 'Offers',
    summary: 'List offers',
    description:
      "One page of the offers on the client's products, with competitiveness data and the product nested, and the exact number " +
      'of matches in `meta.total`. Every filter combines with every sort.',
    query: {
      schema: offerQueryParameters,
      parameters: {
        ...listParameters('`id`, `total_competitors`, `offer_price` or `updated_at`; default `id`, whatever the filters'),
        competitiveness: { description: "Exact match on the offer's competitiveness.", example: 'high' },
        total_competitors_gte: { description: 'Only offers with at least this many competitors (integer >= 0).', example: '3' },
        _include_other_offers: {
          description: "`false` (default): only the client's own offers; `true`: also the other sellers' offers on the client's products.",
          example: 'true',
        },
      },
    },
    success: { status: 200, description: 'A page of offers.', body: { schema: 'OffersPage', example: offersPageExample } },
    problems: [400, 401, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description: 'An unknown, repeated or malformed parameter, or a filter and sort that cannot be combined; `errors` names it.',
        example: () => validationExample(offerQueryParameters, { _sort: 'price' }, 'The query parameters are not valid.'),
      },
    },
  },
  GetOffer: {
    tag: 'Offers',
    summary: 'Get an offer',
    description: "One offer on the client's products (the client's own or another seller's), with the product nested.",
    pathParameters: { id: { schema: offerRecord.shape.id, description: "The offer's `id` (not its marketplace `offer_id`).", example: offerExample.id } },
    success: { status: 200, description: 'The offer.', body: { schema: 'Offer', example: offerExample } },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: { 404: { description: "No offer with this id exists on this client's products.", example: () => offerNotFound().problem } },
  },
  GetProduct: {
    tag: 'Products',
    summary: 'Get a product',
    description: "One of the client's products, with its fee estimates and its in-stock premium on each connector as learned from the storefront.",
    pathParameters: { code: { schema: productRecord.shape.code, description: 'The product code, percent-encoded.', example: productExample.code } },
    success: { status: 200, description: 'The product.', body: { schema: 'ProductDetail', example: productDetailExample } },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: { 404: { description: 'No product with this code exists for this client.', example: () => productNotFound().problem } },
  },
  CreateWebhook: {
    tag: 'Webhooks',
    summary: 'Create a webhook',
    description:
      `Subscribes a URL to event types. The answer shows the signing \`secret\` once. At most ${MAX_WEBHOOKS_PER_CLIENT} webhooks per client. ` +
      'The URL must use `https` and every address its host resolves to must be public (checked again at each delivery).',
    requestBody: {
      description: 'The URL and the event types; unknown fields are refused (400).',
      schema: 'CreateWebhookRequest',
      example: createWebhookExample,
    },
    success: {
      status: 201,
      description: 'Created: the webhook and its signing secret.',
      body: { schema: 'CreatedWebhook', example: { ...webhookExample, secret: `whsec_${'0'.repeat(64)}` } },
      headers: ['Location'],
    },
    problems: [400, 401, 409, 413, 415, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description: 'The body is not valid JSON or not valid (`errors` names each field), or the URL is not allowed.',
        example: () => validationExample(createWebhookBody, { url: 'https://example.com/hooks', event_types: ['PRICE_CHANGED'] }),
      },
      409: {
        description: `The client already has ${MAX_WEBHOOKS_PER_CLIENT} webhooks.`,
        example: () => conflict(`A client may have at most ${MAX_WEBHOOKS_PER_CLIENT} webhooks; delete one first.`).problem,
      },
    },
  },
  ListWebhooks: {
    tag: 'Webhooks',
    summary: 'List webhooks',
    description: `All of the client's webhooks (at most ${MAX_WEBHOOKS_PER_CLIENT}), by id, without their secrets.`,
    success: { status: 200, description: 'The webhooks.', body: { schema: 'WebhooksList', example: { webhooks: [webhookExample] } } },
    problems: [400, 401, ...SERVER_SIDE],
  },
  GetWebhook: {
    tag: 'Webhooks',
    summary: 'Get a webhook',
    description: 'The webhook, without its secret.',
    pathParameters: { id: webhookId },
    success: { status: 200, description: 'The webhook.', body: { schema: 'Webhook', example: webhookExample } },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: { 404: { description: webhookNotFoundText, example: () => webhookNotFound().problem } },
  },
  DeleteWebhook: {
    tag: 'Webhooks',
    summary: 'Delete a webhook',
    description: 'Deletes the webhook: it receives nothing more, and its place counts no longer.',
    pathParameters: { id: webhookId },
    success: { status: 204, description: 'Deleted; no body.' },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: { 404: { description: webhookNotFoundText, example: () => webhookNotFound().problem } },
  },
  ListWebhookDeliveries: {
    tag: 'Webhooks',
    summary: "List a webhook's deliveries",
    description: 'The latest deliveries, newest event first: status, attempts and the last outcome of each.',
    pathParameters: { id: webhookId },
    query: {
      schema: webhookDeliveriesQuery,
      parameters: { _limit: { description: 'How many deliveries, 1-100; default 100.', example: '20' } },
    },
    success: { status: 200, description: 'The deliveries.', body: { schema: 'WebhookDeliveriesPage', example: webhookDeliveriesExample } },
    problems: [400, 401, 404, ...SERVER_SIDE],
    problemOverrides: { 404: { description: webhookNotFoundText, example: () => webhookNotFound().problem } },
  },
  PutConnection: {
    tag: 'Connections',
    summary: 'Connect to a marketplace',
    description:
      'Connects the client to the marketplace of this connector, or replaces the key, webhook secret and mode of its connection there. ' +
      'The key is checked with the marketplace first: nothing is stored when it is refused (422) or cannot be checked now (503). ' +
      'Then it is stored encrypted and only its last four characters are ever shown (docs/connections.md).',
    pathParameters: { connector: connectorParameterSpec },
    requestBody: {
      description: 'The key, the optional webhook secret and the mode (default `suggest`); unknown fields are refused (400).',
      schema: 'PutConnectionRequest',
      example: putConnectionExample,
    },
    success: {
      status: 201,
      description: 'Connected: a new connection.',
      body: { schema: 'Connection', example: connectionExample },
      headers: ['Location'],
      alternative: { status: 200, description: 'Connected: the connection there was, with its key, webhook secret and mode replaced.' },
    },
    problems: [400, 401, 404, 409, 413, 415, 422, ...SERVER_SIDE],
    problemOverrides: {
      400: {
        description: 'The body is not valid JSON or not valid (`errors` names each field).',
        example: () => validationExample(putConnectionBody, { api_key: 'short', mode: 'auto' }),
      },
      404: { description: 'No connector type has this uid.', example: () => connectorNotFound().problem },
      409: { description: 'Another request changed the connection meanwhile; nothing was stored. Retry.' },
      422: {
        description: "The marketplace refused the key (or the service does not talk to this connector's marketplace); nothing was stored.",
        example: () => keyRejected().problem,
      },
      503: {
        description:
          'The marketplace could not check the key now (or the service could not serve the request); nothing was stored. `Retry-After` says when to try again.',
        example: () => marketplaceUnavailable().problem,
      },
    },
  },
  PatchConnection: {
    tag: 'Connections',
    summary: 'Change the mode or the safety limits (the kill switch)',
    description:
      'Sets `mode` (`suggest` is the kill switch: nothing more is sent, even what was queued) and/or any of the `safety` limits, ' +
      'without the API key and without asking the marketplace, so it works while the marketplace is down or rate limiting. ' +
      'Only the fields named change; the status, its reason, the seller-API hold and the counters stay (docs/connections.md).',
    pathParameters: { connector: connectorParameterSpec },
    requestBody: {
      description: 'The fields to change; at least one. Unknown fields are refused (400).',
      schema: 'PatchConnectionRequest',
      example: patchConnectionExample,
    },
    success: { status: 200, description: 'The connection as it now is.', body: { schema: 'Connection', example: connectionExample } },
    problems: [400, 401, 404, 409, 413, 415, ...SERVER_SIDE],
    problemOverrides: {
      ...connectionNotFoundProblem,
      400: {
        description: 'The body is not valid JSON or not valid (`errors` names each field), or names nothing to change.',
        example: () => validationExample(patchConnectionBody, { mode: 'off' }),
      },
      409: { description: 'The connection kept being replaced while this request was applied; nothing was stored. Retry.' },
    },
  },
  ListConnections: {
    tag: 'Connections',
    summary: 'List connections',
    description: "All of the client's marketplace connections (one per connector), without their keys.",
    success: { status: 200, description: 'The connections.', body: { schema: 'ConnectionsList', example: { connections: [connectionExample] } } },
    problems: [400, 401, ...SERVER_SIDE],
  },
  GetConnection: {
    tag: 'Connections',
    summary: 'Get a connection',
    description: 'The connection, its status, last sync and counts, without its key or webhook secret.',
    pathParameters: { connector: connectorParameterSpec },
    success: { status: 200, description: 'The connection.', body: { schema: 'Connection', example: connectionExample } },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: connectionNotFoundProblem,
  },
  DeleteConnection: {
    tag: 'Connections',
    summary: 'Delete a connection',
    description: 'Deletes the connection and its stored key: nothing more is synced or sent to the marketplace. Synced products and offers stay.',
    pathParameters: { connector: connectorParameterSpec },
    success: { status: 204, description: 'Deleted; no body.' },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: connectionNotFoundProblem,
  },
  SyncConnection: {
    tag: 'Connections',
    summary: 'Ask for a full sync',
    description:
      'Asks for a full sync now (own offers and the market of every product): recorded as `sync_requested_at`. ' +
      'Per connection, a request while an accepted sync has not run yet joins it, and at most 4 are accepted within an hour (docs/connections.md).',
    pathParameters: { connector: connectorParameterSpec },
    success: {
      status: 202,
      description: 'Accepted (`Sync-Request: accepted`, `sync_requested_at` set) or joined to the sync already queued (`Sync-Request: coalesced`).',
      body: { schema: 'Connection', example: { ...connectionExample, sync_requested_at: connectionExample.updated_at } },
      headers: ['Sync-Request'],
    },
    problems: [401, 404, ...SERVER_SIDE],
    problemOverrides: {
      ...connectionNotFoundProblem,
      429: {
        description: 'Beyond the limit of full syncs for this connection (nothing queued; `Retry-After`: until the oldest leaves the hour), or throttled.',
        example: () => syncLimited(1200).problem,
      },
    },
  },
  ResumeConnection: {
    tag: 'Connections',
    summary: 'Resume a paused connection',
    description:
      'Resumes a connection the circuit breaker paused (`status: paused`): `connected` again, `last_error` cleared. ' +
      'The price changes it held are checked again against the repricers and offers as they are now and sent, the latest per offer. ' +
      'The client hears `CONNECTION_STATUS_CHANGED`.',
    pathParameters: { connector: connectorParameterSpec },
    success: { status: 200, description: 'The connection, `connected` again.', body: { schema: 'Connection', example: connectionExample } },
    problems: [401, 404, 409, ...SERVER_SIDE],
    problemOverrides: connectionNotFoundProblem,
  },
  Ping: {
    tag: 'Documentation',
    summary: 'Check credentials',
    description: 'Answers with the user name the credentials belong to. Reads nothing beyond what authentication reads.',
    success: { status: 200, description: 'The credentials work.', body: { schema: 'Pong', example: { pong: true, client: 'demo' } } },
    problems: [401, 429, 500, 504],
  },
  ReceiveMarketplaceEvent: {
    tag: 'Marketplace events',
    calledBy: 'marketplace',
    summary: "Receive a marketplace's webhook",
    description:
      "Called by the marketplace, not by clients, at the URL the seller registers in the marketplace's seller portal: the connection's `uid` names it. " +
      "No Basic auth: the request must carry the marketplace's signature, made with the connection's `webhook_secret` (Takealot: `X-Takealot-Signature`, " +
      'either the hex HMAC-SHA256 of the raw body or the base64 HMAC-SHA256 of this URL as called, without a query string, followed by the raw body). ' +
      'A verified event whose delivery id is new is recorded and answered 200; it only brings the next read of its offer forward (nothing it says is written to offers). ' +
      'Anything else (unknown uid, no webhook secret held, unsigned, badly signed, a body over ' +
      `${MAX_BODY_BYTES / 1024} KiB, a delivery id seen before) gets the same 401, byte for byte, and changes nothing (docs/connections.md).`,
    pathParameters: {
      uid: { schema: connectionRecord.shape.uid, description: "The connection's `uid` (`GET /v1/connections/{connector}`).", example: connectionExample.uid },
    },
    headerParameters: [
      {
        name: 'X-Takealot-Event',
        description: '`Offer Updated`, `Offer Created`, `Batch Completed` (any case and separator) or another event.',
        example: 'Offer Updated',
        required: true,
      },
      {
        name: 'X-Takealot-Delivery',
        description: 'The delivery id: a repeat of one already received is refused (401).',
        example: '5d1f0b2a-7c3e-4f9a-8b6d-2e4c6a8b0d1f',
        required: true,
      },
      {
        name: 'X-Takealot-Signature',
        description: 'The signature, in either reported scheme (a `sha256=` prefix is tolerated).',
        example: '9f2c6a0e4b1d8f3a7c5e2b9d0a6f4c1e8b3d7a5f2c9e6b0d4a1f8c3e7b5d2a9f',
        required: true,
      },
    ],
    requestBody: {
      description: "The marketplace's event, exactly as it signed it. `offer_id` names the offer an Offer Updated or Offer Created event is about.",
      schema: {
        type: 'object',
        properties: {
          offer_id: { anyOf: [{ type: 'integer' }, { type: 'string' }, { type: 'null' }] },
          batch_id: { anyOf: [{ type: 'integer' }, { type: 'string' }, { type: 'null' }] },
          values_changed: { description: 'What changed, as an object or a JSON string holding one; not stored.' },
        },
      },
      example: { offer_id: 123456, values_changed: { selling_price: { old: 100, new: 95 } } },
    },
    success: {
      status: 200,
      description: 'A verified event, received for the first time.',
      body: {
        schema: { type: 'object', required: ['received'], additionalProperties: false, properties: { received: { type: 'boolean', const: true } } },
        example: EVENT_RECEIVED,
      },
    },
    problems: [401, 429, 500, 503, 504],
    problemOverrides: {
      401: {
        description:
          'Not a verified, new event: an unknown uid, a connection without a webhook secret, no or a bad signature, an over-size body or a repeated delivery id. ' +
          'Always this body; no `WWW-Authenticate`.',
        example: () => EVENT_REFUSED,
        headers: [],
      },
      500: {
        description: "A bug, or the connection's webhook secret could not be opened: the body is generic and the details are only in the service's logs.",
      },
    },
  },
  GetOpenApi: {
    tag: 'Documentation',
    summary: 'Get this OpenAPI document',
    description: 'This document, generated from the schemas the service validates requests with and shapes responses from. No credentials needed.',
    success: {
      status: 200,
      description: 'The OpenAPI 3.1 document.',
      body: {
        schema: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string', const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
        },
        example: { openapi: '3.1.0', info: { title: 'Repricer API', version: '1.0.0-beta' }, paths: { '/v1/offers': { get: { operationId: 'listOffers' } } } },
      },
    },
    problems: [429, 500],
  },
};
