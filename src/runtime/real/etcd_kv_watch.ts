import type { Logger } from '../logger.js';
import { errorMessage, type EtcdHttp } from './etcd_kv_http.js';
import {
  revision,
  type EtcdEvent,
  type EtcdKeyValue,
  type EtcdRangeResponse,
  type EtcdWatchResult,
} from './etcd_kv_wire.js';

export interface EtcdWatchHandlers {
  /** The full current state of the range, after every (re)connect; false ends the watch. */
  snapshot(kvs: readonly EtcdKeyValue[]): boolean;
  /** One batch of changes as etcd sent it; false ends the watch. */
  events(events: readonly EtcdEvent[]): boolean;
}

export interface EtcdWatchOptions {
  /** Names the watch in log lines, e.g. `watch key "ring"`. */
  op: string;
  range: { key: string; range_end?: string };
  http: EtcdHttp;
  /** Ends the watch (the caller's signal combined with the client's close). */
  signal: AbortSignal;
  handlers: EtcdWatchHandlers;
  logger: Logger;
  retryMinMs: number;
  retryMaxMs: number;
}

/**
 * The watch loop: read the range (the snapshot, at revision R), stream changes from R+1, and
 * on any error or end of stream (etcd restarted, compacted past us, member gone) wait with
 * backoff and start over from a fresh snapshot. Reading before watching from the snapshot's
 * next revision means no change is ever missed between the two, and a reconnect can only
 * repeat state the handlers already deduplicate by revision.
 */
export async function runEtcdWatch(opts: EtcdWatchOptions): Promise<void> {
  const { signal, handlers, logger } = opts;
  let backoff = opts.retryMinMs;
  while (!signal.aborted) {
    // Ends this attempt's stream early when a handler asks to stop.
    const attempt = new AbortController();
    const attemptSignal = AbortSignal.any([signal, attempt.signal]);
    let stopped = false;
    try {
      const snap = await opts.http.call<EtcdRangeResponse>(
        `${opts.op} (read)`,
        '/v3/kv/range',
        opts.range,
        attemptSignal,
      );
      if (!handlers.snapshot(snap.kvs ?? [])) return;
      const startRevision = revision(snap.header?.revision) + 1;
      await opts.http.stream(
        opts.op,
        '/v3/watch',
        { create_request: { ...opts.range, start_revision: String(startRevision) } },
        attemptSignal,
        (msg) => {
          if (stopped) return;
          if (msg.error !== undefined) {
            throw new Error(`watch error: ${JSON.stringify(msg.error)}`);
          }
          const result = (msg.result ?? {}) as EtcdWatchResult;
          if (result.canceled === true) {
            throw new Error(
              `watch canceled by etcd: ${result.cancel_reason ?? 'no reason given'}` +
                (result.compact_revision === undefined
                  ? ''
                  : ` (compacted to revision ${result.compact_revision})`),
            );
          }
          const events = result.events ?? [];
          if (events.length > 0 && !handlers.events(events)) {
            stopped = true;
            attempt.abort();
            return;
          }
          backoff = opts.retryMinMs; // the stream works: a later failure starts from short pauses
        },
      );
      if (stopped) return;
      if (signal.aborted) return;
      logger.warn('etcd watch stream ended, re-establishing', { op: opts.op, backoffMs: backoff });
    } catch (err) {
      if (stopped || signal.aborted) return;
      logger.warn('etcd watch failed, re-establishing', {
        op: opts.op,
        err: errorMessage(err),
        backoffMs: backoff,
      });
    }
    if (!(await pause(backoff, signal))) return;
    backoff = Math.min(backoff * 2, opts.retryMaxMs);
  }
}

/** Waits `ms`; false if `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
