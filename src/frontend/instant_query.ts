/**
 * Instant queries through the query-frontend. Cortex's instant-query path runs only vertical
 * sharding; so does this one: when the tenant's `query_vertical_shard_size` is above 1 and
 * the query is a shardable aggregation (shard_rewrite.ts), it runs as the one-step range
 * query [t, t] through the shard and retry middlewares, and each answer series' one point
 * becomes a sample of the instant vector. A range query whose start and end are the instant
 * evaluates exactly as the instant query (Prometheus evaluates both as ranges; `@ start()`
 * and `@ end()` are both t), so the samples are the unsharded query's.
 *
 * Everything else — no shard size, a query that does not shard, `limit` or `stats`, or a
 * parameter the querier would refuse — is forwarded to a querier as it came, so its answer
 * and its errors are the querier's own.
 *
 * The one difference from a querier's answer: the samples come in label order (the merged
 * range answer's), where Prometheus leaves an aggregation's samples in the order it met the
 * groups. Prometheus promises no order for an instant vector outside sort functions, and
 * a top-level sort() is not sharded.
 */
import {
  type Form,
  encodeResult,
  nsToMs,
  parseApiDuration,
  parseApiTime,
  successBody,
} from '../api/index.js';
import type { Sample } from '../promql/index.js';
import type { RangeHandler } from './handler.js';
import type { RangeRequest } from './range_request.js';
import { CACHE_CONTROL, NO_STORE, forwardedHeaders, normalizeTenantIds } from './range_request.js';
import type { RangeResponse } from './range_response.js';
import { shardCount } from './shard_middleware.js';
import { planSharding } from './shard_rewrite.js';

/** The step of the one-step range query (any positive step evaluates [t, t] alike). */
const INSTANT_STEP_MS = 1_000;

export interface InstantSharding {
  /** `query_vertical_shard_size` of a tenant (0 or 1 = no sharding). */
  readonly shardSize: (tenantId: string) => number;
  /** Leave ungrouped sum/avg unsharded (as the range path does). */
  readonly exactOnly: boolean;
  /** The shard and retry middlewares in front of a querier's `query_range`. */
  readonly handler: RangeHandler;
  /** The evaluation time of a query without `time`: now, in ms. */
  readonly nowMs: () => number;
}

export interface InstantRequestContext {
  readonly tenantIds: readonly string[];
  /** Request headers by lower-case name. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  /** Header names (any case) forwarded to the querier. */
  readonly forwardHeaders: readonly string[];
}

/** True when `parse` accepts the value (an empty value is the default, accepted). */
function parses(raw: string, parse: (s: string) => unknown): boolean {
  if (raw === '') return true;
  try {
    parse(raw);
    return true;
  } catch {
    return false;
  }
}

/**
 * The one-step range request an instant query form runs as, or undefined when the query is
 * to be forwarded whole (not sharded, or something the querier must answer itself).
 */
export function shardedInstantRequest(
  form: Form,
  ctx: InstantRequestContext,
  sharding: Pick<InstantSharding, 'shardSize' | 'exactOnly' | 'nowMs'>,
): RangeRequest | undefined {
  const tenantIds = normalizeTenantIds(ctx.tenantIds);
  const limit = form.get('limit');
  const stats = form.get('stats');
  if ((limit !== '' && limit !== '0') || stats !== '') return undefined;
  const timeout = form.get('timeout');
  const lookbackDelta = form.get('lookback_delta');
  if (!parses(timeout, parseApiDuration) || !parses(lookbackDelta, parseApiDuration))
    return undefined;
  const time = form.get('time');
  let t: number;
  if (time === '') t = sharding.nowMs();
  else {
    try {
      t = nsToMs(parseApiTime(time));
    } catch {
      return undefined;
    }
  }
  const draft: RangeRequest = {
    tenantIds,
    query: form.get('query'),
    start: t,
    end: t,
    step: INSTANT_STEP_MS,
    params: { limit, timeout, lookbackDelta, stats },
    headers: forwardedHeaders(ctx.headers, ctx.forwardHeaders),
    cachingDisabled: (ctx.headers.get(CACHE_CONTROL) ?? []).some((v) => v.includes(NO_STORE)),
  };
  if (shardCount(draft, sharding.shardSize) <= 1) return undefined;
  const decision = planSharding(draft.query, { exactOnly: sharding.exactOnly });
  return decision.shardable ? draft : undefined;
}

/** The querier's instant-query success body for the one-step range answer at `t`. */
export function encodeInstantResponse(resp: RangeResponse, t: number): string {
  const vector: Sample[] = [];
  for (const s of resp.series) {
    const point = s.floats.find((p) => p.t === t);
    if (point !== undefined) vector.push({ metric: s.metric, t, f: point.f });
  }
  const data = `{"resultType":"vector","result":${encodeResult({ type: 'vector', vector })}}`;
  return successBody(data, resp.warnings, resp.infos);
}
