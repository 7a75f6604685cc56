import { AbortError, isAbortError, throwIfAborted } from '../clock.js';
import type { KV } from '../kv.js';
import type { Logger } from '../logger.js';
import { EtcdHttp, EtcdRequestError, errorMessage } from './etcd_kv_http.js';
import { runEtcdWatch } from './etcd_kv_watch.js';
import {
  fromBase64,
  keyFromBase64,
  prefixRange,
  revision,
  toBase64,
  type EtcdKeyValue,
  type EtcdRangeResponse,
  type EtcdTxnResponse,
} from './etcd_kv_wire.js';

export interface EtcdKVConfig {
  /** Client URLs of the etcd members, tried in order (Cortex's `-etcd.endpoints`). */
  endpoints: readonly string[];
  /** Connection timeout per endpoint (Cortex's `-etcd.dial-timeout`). */
  dialTimeoutMs: number;
  /** Prepended to every key (e.g. `collectors/`); keys are reported without it. */
  prefix?: string;
  /** CAS attempts before giving up (Cortex's `-etcd.max-retries`, default 10). */
  maxCasRetries?: number;
  /** Limit on one request to one endpoint; defaults to max(10 s, dialTimeoutMs). */
  requestTimeoutMs?: number;
  /** Pause before re-establishing a failed watch, doubling up to the maximum. */
  watchRetryMinMs?: number;
  watchRetryMaxMs?: number;
}

export const DEFAULT_ETCD_MAX_CAS_RETRIES = 10;

/**
 * A KV client of etcd v3 over its HTTP/JSON gateway. CAS reads the key with its
 * `mod_revision` and commits with a transaction comparing it (or `create_revision == 0` for
 * an absent key), retrying on conflicts and unavailability like Cortex's etcd client.
 * Watches re-read the current state and resume after every error, so the callback always
 * ends up at the latest value.
 */
export class EtcdKV implements KV {
  private readonly prefix: string;
  private readonly maxCasRetries: number;
  private readonly http: EtcdHttp;
  private readonly closing = new AbortController();
  private readonly retryMinMs: number;
  private readonly retryMaxMs: number;

  constructor(
    config: EtcdKVConfig,
    private readonly deps: { logger: Logger },
  ) {
    this.prefix = config.prefix ?? '';
    this.maxCasRetries = config.maxCasRetries ?? DEFAULT_ETCD_MAX_CAS_RETRIES;
    if (!Number.isSafeInteger(this.maxCasRetries) || this.maxCasRetries < 1) {
      throw new RangeError(`maxCasRetries must be a positive integer, got ${config.maxCasRetries}`);
    }
    this.retryMinMs = config.watchRetryMinMs ?? 100;
    this.retryMaxMs = config.watchRetryMaxMs ?? 2_000;
    this.http = new EtcdHttp({
      endpoints: config.endpoints,
      dialTimeoutMs: config.dialTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs ?? Math.max(10_000, config.dialTimeoutMs),
    });
  }

  async get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    const kv = await this.readOne(key, signal);
    return kv === undefined ? undefined : fromBase64(kv.value);
  }

  async list(prefix: string, signal?: AbortSignal): Promise<string[]> {
    const res = await this.call<EtcdRangeResponse>(
      `list ${JSON.stringify(prefix)}`,
      '/v3/kv/range',
      { ...prefixRange(this.prefix + prefix), keys_only: true },
      signal,
    );
    return (res.kvs ?? [])
      .map((kv) => keyFromBase64(kv.key).slice(this.prefix.length))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async cas(
    key: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const fullKey = toBase64(this.prefix + key);
    let conflicts = 0;
    let lastError: unknown;
    for (let attempt = 0; attempt < this.maxCasRetries; attempt++) {
      let current: EtcdKeyValue | undefined;
      try {
        current = await this.readOne(key, signal);
      } catch (err) {
        if (!this.retriable(err, signal)) throw err;
        lastError = err;
        continue;
      }
      const next = update(current === undefined ? undefined : fromBase64(current.value));
      if (next === undefined || (next === null && current === undefined)) return;
      const compare =
        current === undefined
          ? { key: fullKey, target: 'CREATE', result: 'EQUAL', create_revision: '0' }
          : { key: fullKey, target: 'MOD', result: 'EQUAL', mod_revision: current.mod_revision };
      const op =
        next === null
          ? { request_delete_range: { key: fullKey } }
          : { request_put: { key: fullKey, value: toBase64(next) } };
      try {
        const res = await this.call<EtcdTxnResponse>(
          `cas ${JSON.stringify(key)}`,
          '/v3/kv/txn',
          { compare: [compare], success: [op] },
          signal,
        );
        if (res.succeeded === true) return;
        conflicts++;
      } catch (err) {
        if (!this.retriable(err, signal)) throw err;
        lastError = err;
      }
    }
    throw new Error(
      `failed to CAS key ${JSON.stringify(key)} (store key ${JSON.stringify(this.prefix + key)}) ` +
        `in ${this.maxCasRetries} attempts: ${conflicts} modified concurrently` +
        (lastError === undefined ? '' : `, last error: ${errorMessage(lastError)}`),
      lastError === undefined ? undefined : { cause: lastError },
    );
  }

  async delete(key: string, signal?: AbortSignal): Promise<void> {
    await this.call(
      `delete ${JSON.stringify(key)}`,
      '/v3/kv/deleterange',
      { key: toBase64(this.prefix + key) },
      signal,
    );
  }

  async watchKey(
    key: string,
    signal: AbortSignal,
    onChange: (value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    const fullKey = toBase64(this.prefix + key);
    // mod_revision of what was reported last; 0 = reported absent; undefined = nothing yet.
    let reported: number | undefined;
    const report = (kv: EtcdKeyValue | undefined, deleted: boolean): boolean => {
      const rev = kv === undefined || deleted ? 0 : revision(kv.mod_revision);
      if (rev === reported) return true;
      reported = rev;
      return onChange(rev === 0 ? undefined : fromBase64(kv?.value));
    };
    await this.watch(`watch key ${JSON.stringify(key)}`, { key: fullKey }, signal, {
      snapshot: (kvs) =>
        report(
          kvs.find((kv) => kv.key === fullKey),
          false,
        ),
      events: (events) => {
        const last = events.filter((e) => e.kv?.key === fullKey).at(-1);
        return last === undefined ? true : report(last.kv, last.type === 'DELETE');
      },
    });
  }

  async watchPrefix(
    prefix: string,
    signal: AbortSignal,
    onChange: (key: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    // Base64 key -> mod_revision of what was reported last (present keys only).
    const known = new Map<string, number>();
    const report = (kv: EtcdKeyValue, deleted: boolean): boolean => {
      const rev = deleted ? 0 : revision(kv.mod_revision);
      if ((known.get(kv.key) ?? 0) === rev) return true;
      if (rev === 0) known.delete(kv.key);
      else known.set(kv.key, rev);
      const key = keyFromBase64(kv.key).slice(this.prefix.length);
      return onChange(key, rev === 0 ? undefined : fromBase64(kv.value));
    };
    await this.watch(
      `watch prefix ${JSON.stringify(prefix)}`,
      prefixRange(this.prefix + prefix),
      signal,
      {
        snapshot: (kvs) => {
          const present = new Set(kvs.map((kv) => kv.key));
          // Keys deleted while the watch was down are reported as deletions.
          for (const gone of [...known.keys()].filter((k) => !present.has(k))) {
            if (!report({ key: gone }, true)) return false;
          }
          return kvs.every((kv) => report(kv, false));
        },
        events: (events) => {
          // Coalesce a batch: each key's last event, in order of first appearance.
          const latest = new Map<string, { kv: EtcdKeyValue; deleted: boolean }>();
          for (const e of events) {
            if (e.kv !== undefined)
              latest.set(e.kv.key, { kv: e.kv, deleted: e.type === 'DELETE' });
          }
          for (const { kv, deleted } of latest.values()) if (!report(kv, deleted)) return false;
          return true;
        },
      },
    );
  }

  close(): Promise<void> {
    this.closing.abort();
    this.http.close();
    return Promise.resolve();
  }

  private watch(
    op: string,
    range: { key: string; range_end?: string },
    signal: AbortSignal,
    handlers: Parameters<typeof runEtcdWatch>[0]['handlers'],
  ): Promise<void> {
    if (this.closing.signal.aborted || signal.aborted) return Promise.resolve();
    return runEtcdWatch({
      op,
      range,
      http: this.http,
      signal: AbortSignal.any([signal, this.closing.signal]),
      handlers,
      logger: this.deps.logger,
      retryMinMs: this.retryMinMs,
      retryMaxMs: this.retryMaxMs,
    });
  }

  private async readOne(key: string, signal?: AbortSignal): Promise<EtcdKeyValue | undefined> {
    const res = await this.call<EtcdRangeResponse>(
      `get ${JSON.stringify(key)}`,
      '/v3/kv/range',
      { key: toBase64(this.prefix + key) },
      signal,
    );
    return res.kvs?.[0];
  }

  private call<T>(op: string, path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    if (this.closing.signal.aborted) {
      return Promise.reject(
        new Error(`etcd kv client (prefix ${JSON.stringify(this.prefix)}) is closed`),
      );
    }
    try {
      throwIfAborted(signal);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new AbortError());
    }
    const combined =
      signal === undefined ? this.closing.signal : AbortSignal.any([signal, this.closing.signal]);
    return this.http.call<T>(op, path, body, combined);
  }

  /** Unavailability is retried within the CAS bound; aborts, closing and bad requests are not. */
  private retriable(err: unknown, signal: AbortSignal | undefined): boolean {
    if (signal?.aborted || this.closing.signal.aborted || isAbortError(err)) return false;
    if (err instanceof EtcdRequestError) return false;
    this.deps.logger.warn('etcd CAS attempt failed, retrying', { err: errorMessage(err) });
    return true;
  }
}
