/**
 * The querier's side of query sharding: a reserved matcher `__query_shard__="<i>_of_<n>"`
 * (Mimir's spelling, 1-based) in a selector keeps only the series whose label hash modulo n
 * is i-1. The query-frontend writes it into every selector of a sharded sub-query; the
 * querier removes it here, in front of ingesters and store-gateways, so storage never sees
 * the unknown label and a series lands in exactly one of the n shards.
 *
 * Which labels are hashed: every label but `__name__` by default, or only the grouping
 * labels of the aggregation when the value says so — `<i>_of_<n>:by:job,instance` hashes
 * the `by` labels, `<i>_of_<n>:without:instance` hashes every label but those and
 * `__name__`. Hashing by the grouping puts every group of a `by`/`without` aggregation
 * wholly into one shard (Thanos's approach), so each shard computes its groups exactly as
 * the unsharded query does. `__name__` is never hashed: functions like `rate` drop it, and
 * series that become equal without it must meet in one shard (where the engine reports the
 * same duplicate-labelset error as the unsharded query).
 *
 * The hash is Prometheus's labels hash (XXH64 of name 0xff value 0xff …), stable across
 * processes and versions, so all queriers agree on the shard of a series.
 */
import { isValidLegacyLabelName, Labels, type Matcher } from '../model/index.js';
import {
  type PromQLErrorType,
  type Querier,
  type Queryable,
  type SelectHints,
  type StorageSeries,
  StorageError,
} from '../promql/index.js';

export const QUERY_SHARD_LABEL = '__query_shard__';

const METRIC_NAME = '__name__';

export type ShardHashLabels =
  | { readonly kind: 'all' }
  | { readonly kind: 'by'; readonly names: readonly string[] }
  | { readonly kind: 'without'; readonly names: readonly string[] };

export interface ShardSelector {
  /** 0-based shard index, < count. */
  readonly index: number;
  readonly count: number;
  readonly labels: ShardHashLabels;
}

/**
 * A malformed shard selector: the query's fault, 400 `bad_data`. It is a StorageError so
 * the engines pass it through unchanged rather than wrapping it as a storage failure.
 */
export class QueryShardError extends StorageError {
  override readonly errorType: PromQLErrorType = 'bad_data';
  constructor(message: string) {
    super(message);
    this.name = 'QueryShardError';
  }
}

/** The matcher value for shard `index` (0-based) of `count`. */
export function formatShardSelector(s: ShardSelector): string {
  const base = `${s.index + 1}_of_${s.count}`;
  if (s.labels.kind === 'all') return base;
  return `${base}:${s.labels.kind}:${s.labels.names.join(',')}`;
}

const SHARD_RE = /^([1-9][0-9]{0,8})_of_([1-9][0-9]{0,8})(?::(by|without):(.*))?$/s;

function invalid(value: string, why: string): QueryShardError {
  return new QueryShardError(
    `invalid query shard selector ${QUERY_SHARD_LABEL}=${JSON.stringify(value)}: ${why}`,
  );
}

/** Parses a matcher value; throws QueryShardError naming the value when it is malformed. */
export function parseShardSelector(value: string): ShardSelector {
  const m = SHARD_RE.exec(value);
  if (m === null) {
    throw invalid(value, 'expected <index>_of_<count>[:by|without:<label>,…]');
  }
  const index = Number(m[1]) - 1;
  const count = Number(m[2]);
  if (index >= count) throw invalid(value, `shard index must be between 1 and ${count}`);
  const kind = m[3];
  if (kind === undefined) return { index, count, labels: { kind: 'all' } };
  const names = m[4] === '' ? [] : (m[4] as string).split(',');
  for (const name of names) {
    if (!isValidLegacyLabelName(name))
      throw invalid(value, `bad label name ${JSON.stringify(name)}`);
  }
  return { index, count, labels: { kind: kind as 'by' | 'without', names } };
}

/** The labels of `series` whose hash picks its shard. */
export function shardKeyLabels(series: Labels, labels: ShardHashLabels): Labels {
  switch (labels.kind) {
    case 'all':
      return series.without(METRIC_NAME);
    case 'without':
      return series.without(METRIC_NAME, ...labels.names);
    case 'by': {
      const pairs: [string, string][] = [];
      for (const name of labels.names) {
        if (name !== METRIC_NAME && series.has(name)) pairs.push([name, series.get(name)]);
      }
      return Labels.fromPairs(pairs);
    }
  }
}

/** The 0-based shard of a series among `count`. */
export function shardOf(series: Labels, count: number, labels: ShardHashLabels): number {
  return Number(shardKeyLabels(series, labels).hash() % BigInt(count));
}

/**
 * Splits matchers into the storage ones and the shard selectors; every shard matcher must be
 * an equality with a well-formed value.
 */
export function extractShardMatchers(matchers: readonly Matcher[]): {
  matchers: Matcher[];
  shards: ShardSelector[];
} {
  const rest: Matcher[] = [];
  const shards: ShardSelector[] = [];
  for (const m of matchers) {
    if (m.name !== QUERY_SHARD_LABEL) {
      rest.push(m);
      continue;
    }
    if (m.type !== '=') throw invalid(m.value, `the matcher must be "=", not "${m.type}"`);
    shards.push(parseShardSelector(m.value));
  }
  return { matchers: rest, shards };
}

function inShards(series: Labels, shards: readonly ShardSelector[]): boolean {
  return shards.every((s) => shardOf(series, s.count, s.labels) === s.index);
}

class ShardingQuerier implements Querier {
  constructor(private readonly inner: Querier) {}

  async select(matchers: readonly Matcher[], hints?: SelectHints): Promise<StorageSeries[]> {
    const { matchers: rest, shards } = extractShardMatchers(matchers);
    if (shards.length === 0) return this.inner.select(matchers, hints);
    // A series limit would count series of other shards: filter first, the API truncates.
    let innerHints = hints;
    if (hints?.limit !== undefined) {
      const { limit: _dropped, ...others } = hints;
      innerHints = others;
    }
    const series = await this.inner.select(rest, innerHints);
    return series.filter((s) => inShards(s.labels, shards));
  }

  // Label APIs are never sharded by the frontend; the selector is checked and dropped.
  labelNames(matchers: readonly Matcher[]): Promise<string[]> {
    return this.inner.labelNames(extractShardMatchers(matchers).matchers);
  }

  labelValues(name: string, matchers: readonly Matcher[]): Promise<string[]> {
    return this.inner.labelValues(name, extractShardMatchers(matchers).matchers);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `queryable` honouring shard selectors; storage below it never sees `__query_shard__`. */
export function shardingQueryable(queryable: Queryable): Queryable {
  return {
    querier: async (mint, maxt) => new ShardingQuerier(await queryable.querier(mint, maxt)),
  };
}
