/**
 * Signed webhooks to the configured loopback URL: Offer Updated and Batch Completed.
 *
 * Signature (`X-Takealot-Signature`), two reported schemes: `hex-body` is the hex HMAC-SHA256
 * of the raw body; `base64-url-body` is the base64 HMAC-SHA256 of the target URL followed by the
 * raw body. `values_changed` goes as an object or as a JSON string (both are reported).
 * Delivery is "not guaranteed": events are dropped or sent twice at the configured rates, each
 * attempt times out after 5 s, and a failed one is retried a few times with a doubling delay.
 */
import { createHmac } from 'node:crypto';
import type { FaultSettings } from './faults.js';
import { isLoopbackUrl, MarketOptionError, type SignatureScheme, type WebhookSettings } from './options.js';
import type { Prng } from './prng.js';

export type WebhookEvent = 'Offer Updated' | 'Batch Completed';

export const signWebhook = (scheme: SignatureScheme, secret: string, url: string, rawBody: string): string =>
  scheme === 'hex-body'
    ? createHmac('sha256', secret).update(rawBody).digest('hex')
    : createHmac('sha256', secret)
        .update(url + rawBody)
        .digest('base64');

/** A version-4 UUID from the PRNG: delivery ids replay with the seed like everything else. */
export const uuidFrom = (prng: Prng): string => {
  const bytes = Array.from({ length: 16 }, () => prng.int(0, 255));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

export interface DeliveryRecord {
  delivery_id: string;
  event: WebhookEvent;
  body: string;
  /** `dropped`: never sent (a drop fault); `failed`: every attempt failed. */
  outcome: 'pending' | 'delivered' | 'failed' | 'dropped';
  attempts: number;
  /** Sent a second time with the same delivery id (a duplicate fault). */
  duplicated: boolean;
  last_status: number | null;
}

const MAX_RECORDS = 1_000;

export class WebhookSender {
  private readonly records: DeliveryRecord[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  /** Where events go now: the configured URL until `setUrl` changes it. */
  private url: string | undefined;

  constructor(
    private readonly settings: WebhookSettings & { secret: string },
    private readonly faults: () => FaultSettings,
    private readonly prng: Prng,
  ) {
    this.url = settings.url;
  }

  /**
   * Points later events at another loopback URL, or turns them off (`undefined`): a seller
   * registers the URL in the seller portal after connecting, so it is known only once the
   * service has a connection. Anything but loopback is refused, as at startup. Deliveries
   * already under way keep the URL they started with.
   */
  setUrl(url: string | undefined): void {
    if (url !== undefined && !isLoopbackUrl(url)) {
      throw new MarketOptionError(`webhook URL must be a loopback URL (http://127.0.0.1:... or http://[::1]:...), got ${url}`);
    }
    this.url = url;
  }

  /** The URL events go to now; undefined when webhooks are off. */
  targetUrl(): string | undefined {
    return this.url;
  }

  /** Queues an event; returns its record (also when there is no URL to send to: then nothing is recorded). */
  send(event: WebhookEvent, payload: Record<string, unknown>): DeliveryRecord | undefined {
    const { url } = this;
    if (url === undefined || this.closing.signal.aborted) return undefined;
    const shaped =
      this.settings.valuesChanged === 'string' && typeof payload.values_changed === 'object'
        ? { ...payload, values_changed: JSON.stringify(payload.values_changed) }
        : payload;
    const faults = this.faults();
    const record: DeliveryRecord = {
      delivery_id: uuidFrom(this.prng),
      event,
      body: JSON.stringify(shaped),
      outcome: 'pending',
      attempts: 0,
      duplicated: false,
      last_status: null,
    };
    // Both draws are made for every event, so one fault setting does not shift the other's stream.
    const dropped = this.prng.chance(faults.webhookDropRate);
    const duplicated = this.prng.chance(faults.webhookDuplicateRate);
    this.records.push(record);
    if (this.records.length > MAX_RECORDS) this.records.shift();
    if (dropped) {
      record.outcome = 'dropped';
      return record;
    }
    record.duplicated = duplicated;
    this.track(this.deliver(url, record, 0));
    if (duplicated) this.track(this.deliver(url, record, 0));
    return record;
  }

  deliveries(): DeliveryRecord[] {
    return this.records.map((record) => ({ ...record }));
  }

  /** Stops retries and aborts what is in flight; resolves when nothing is left running. */
  async close(): Promise<void> {
    this.closing.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private track(delivery: Promise<void>): void {
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  private async deliver(url: string, record: DeliveryRecord, attempt: number): Promise<void> {
    if (this.closing.signal.aborted) return;
    record.attempts += 1;
    let ok = false;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'X-Takealot-Event': record.event,
          'X-Takealot-Delivery': record.delivery_id,
          'X-Takealot-Signature': signWebhook(this.settings.signature, this.settings.secret, url, record.body),
        },
        body: record.body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(this.settings.timeoutMs), this.closing.signal]),
      });
      await response.body?.cancel();
      record.last_status = response.status;
      ok = response.ok;
    } catch {
      record.last_status = null;
    }
    if (ok) {
      record.outcome = 'delivered';
      return;
    }
    if (attempt >= this.settings.retries || this.closing.signal.aborted) {
      if (record.outcome !== 'delivered') record.outcome = 'failed';
      return;
    }
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.track(this.deliver(url, record, attempt + 1));
      },
      this.settings.retryDelayMs * 2 ** attempt,
    );
    this.timers.add(timer);
  }
}
