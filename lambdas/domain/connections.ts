import * as z from 'zod';
import { connectorUid, timestamp } from './records.js';
import { DEFAULT_OUTLIER_PERCENT } from './breaker-evidence.js';
import { text } from './text.js';

/**
 * A client's connection to a marketplace (docs/design.md, "The marketplace loop", docs/connections.md): one per
 * connector type, holding the seller's API key (stored sealed, shown only by its last four
 * characters), how decisions reach the marketplace (`mode`) and how the syncs fare.
 */
export const CONNECTION_MODES = ['suggest', 'live'] as const;
export type ConnectionMode = (typeof CONNECTION_MODES)[number];
/** `connected` after a PUT whose key the marketplace accepted; the others are set by syncs and the sender. */
export const CONNECTION_STATUSES = ['connected', 'unauthorized', 'paused', 'error'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const MAX_API_KEY_LENGTH = 512;
export const MAX_WEBHOOK_SECRET_LENGTH = 512;

/**
 * The sender's safety limits of a connection (docs/design.md, "The marketplace loop", docs/price-sending.md), with
 * the defaults a seller would pick: one push moves a price by at most `max_step_percent` (a
 * bigger move goes in steps); at most `max_changes_per_day` pushes per offer a day (UTC); the
 * circuit breaker pauses the connection when more than `breaker_share_percent` of its repriced
 * offers would drop by more than `breaker_drop_percent` within `breaker_window_minutes`, for a
 * reason the market does not explain (`breaker_outlier_percent`).
 */
const safetyLimits = {
  max_step_percent: z.int().min(1).max(100),
  max_changes_per_day: z.int().min(1).max(1_000),
  breaker_drop_percent: z.int().min(1).max(100),
  breaker_share_percent: z.int().min(1).max(100),
  breaker_window_minutes: z.int().min(1).max(1_440),
  /**
   * A sharp drop counts toward the breaker only when the market does not explain it: the rival it
   * follows is more than this far under the product's next rival (domain/breaker-evidence.ts).
   */
  breaker_outlier_percent: z.int().min(1).max(99),
};
/** As stored: limits stored before the outlier limit existed read its default. */
export const connectionSafety = z.strictObject({
  ...safetyLimits,
  breaker_outlier_percent: safetyLimits.breaker_outlier_percent.default(DEFAULT_OUTLIER_PERCENT),
});
export type ConnectionSafety = z.infer<typeof connectionSafety>;
export const DEFAULT_SAFETY: ConnectionSafety = {
  max_step_percent: 20,
  max_changes_per_day: 48,
  breaker_drop_percent: 10,
  breaker_share_percent: 30,
  breaker_window_minutes: 15,
  breaker_outlier_percent: DEFAULT_OUTLIER_PERCENT,
};

/**
 * A seller id as the client states it: Takealot's ids are numbers, shown by some pages with a
 * leading `M` (`M12345` and `12345` are one seller), so one leading `M` before digits is dropped.
 */
export const sellerIdText = text()
  .min(1)
  .max(45)
  .transform((value) => value.trim().replace(/^[Mm](?=\d+$)/, ''))
  .pipe(text().min(1).max(45));

/**
 * Who said which seller the client is on the marketplace: the client (`seller_id` on the PUT), or
 * the marketplace itself in a signed webhook. Never guessed from a storefront page: an entry whose
 * `sku` looks like the client's may be a rival's.
 */
export const SELLER_ID_SOURCES = ['client', 'marketplace'] as const;

export const putConnectionBody = z.strictObject({
  /** At least 8 characters, so the last four shown never are most of it. */
  api_key: text().min(8).max(MAX_API_KEY_LENGTH),
  webhook_secret: text().min(16).max(MAX_WEBHOOK_SECRET_LENGTH).optional(),
  mode: z.enum(CONNECTION_MODES).default('suggest'),
  /** The client's seller id on the marketplace: how its own offer is told from rivals' on a product page. */
  seller_id: sellerIdText.optional(),
  /** Any of the limits; the others keep their value (or the default). */
  safety: z.strictObject(safetyLimits).partial().optional(),
});
export type PutConnectionBody = z.infer<typeof putConnectionBody>;

/**
 * The kill switch and the safety limits, changed without the key (PATCH): the mode, any of the
 * limits, or both; at least one thing to change.
 */
export const patchConnectionBody = z
  .strictObject({
    mode: z.enum(CONNECTION_MODES).optional(),
    safety: z
      .strictObject(safetyLimits)
      .partial()
      .refine((safety) => Object.keys(safety).length > 0, 'Name at least one limit to change.')
      .optional(),
  })
  .refine((body) => body.mode !== undefined || body.safety !== undefined, 'Name `mode` or `safety`: there is nothing to change.');
export type PatchConnectionBody = z.infer<typeof patchConnectionBody>;

export const connectionRecord = z.strictObject({
  connector: connectorUid,
  /** Names the connection in the public marketplace-events route: `/v1/marketplace-events/{uid}`. */
  uid: z.uuid(),
  key_last4: z.string(),
  /** Whether a marketplace webhook secret is held (never the secret itself). */
  webhook_secret_set: z.boolean(),
  mode: z.enum(CONNECTION_MODES),
  status: z.enum(CONNECTION_STATUSES),
  /** Null while nobody has said which seller the client is: then nothing is decided from the storefront. */
  seller_id: z.string().nullable().default(null),
  seller_id_source: z.enum(SELLER_ID_SOURCES).nullable().default(null),
  /** Entries of marketplace answers left out because they lacked what pricing needs (a seller id, a price, an offer id). */
  entries_skipped: z.int().min(0).default(0),
  /** Stored connections from before the sender read with the defaults. */
  safety: connectionSafety.default(DEFAULT_SAFETY),
  last_sync_at: timestamp.nullable(),
  last_error: z.string().nullable(),
  /** When the client last asked for a full sync (`POST .../sync`). */
  sync_requested_at: timestamp.nullable(),
  offers_synced: z.int().min(0),
  prices_sent: z.int().min(0),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Connection = z.infer<typeof connectionRecord>;
export const connectionsList = z.strictObject({ connections: z.array(connectionRecord) });

/** The last four characters of a key: all the service ever shows of it. */
export const keyLast4 = (apiKey: string): string => [...apiKey].slice(-4).join('');

/**
 * The record after a PUT the marketplace accepted: a new connection, or the one there was with
 * its key, secret and mode replaced. A replaced key starts over as `connected`; the sync
 * history and counters stay, and so does the uid (the marketplace's webhooks point at it).
 */
export const connectedRecord = (
  connector: string,
  input: {
    readonly apiKey: string;
    readonly webhookSecretSet: boolean;
    readonly mode: ConnectionMode;
    readonly sellerId?: string | undefined;
    readonly safety?: Partial<ConnectionSafety> | undefined;
  },
  before: Connection | undefined,
  now: string,
  newUid: () => string = () => crypto.randomUUID(),
): Connection => ({
  connector,
  uid: before?.uid ?? newUid(),
  key_last4: keyLast4(input.apiKey),
  webhook_secret_set: input.webhookSecretSet,
  mode: input.mode,
  // A pause is lifted only by resume: a new key or mode leaves it (and its reason) as it was.
  status: before?.status === 'paused' ? 'paused' : 'connected',
  // A seller id the client states wins; else the one known before (stated or told by the marketplace) stays.
  seller_id: input.sellerId ?? before?.seller_id ?? null,
  seller_id_source: input.sellerId !== undefined ? 'client' : (before?.seller_id_source ?? null),
  entries_skipped: before?.entries_skipped ?? 0,
  safety: { ...(before?.safety ?? DEFAULT_SAFETY), ...input.safety },
  last_sync_at: before?.last_sync_at ?? null,
  last_error: before?.status === 'paused' ? before.last_error : null,
  sync_requested_at: before?.sync_requested_at ?? null,
  offers_synced: before?.offers_synced ?? 0,
  prices_sent: before?.prices_sent ?? 0,
  created_at: before?.created_at ?? now,
  updated_at: now,
});
