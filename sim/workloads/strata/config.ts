import type { TenantSpec } from './tenant_spec.js';
import {
  ScenarioError,
  formatDuration,
  readArray,
  readDuration,
  readNumber,
  readObject,
  readString,
} from '../../fields/index.js';
import { describeLongTerm, parseLongTerm, type LongTermConfig } from './config_long_term.js';
import { describeCanaryModes, parseBrokenQuerier, type BrokenQuerier } from './canaries.js';
import { describeHa, parseHaConfig, type HaConfig } from './config_ha.js';
import { describeLimits, parseLimitsConfig, type LimitsScenarioConfig } from './config_limits.js';
import {
  describeFrontendSim,
  parseFrontendSim,
  type FrontendSimConfig,
} from './config_frontend.js';

/**
 * Deliberately broken ingesters, for proving that the checks catch what they claim to catch.
 * `none` runs the real ingester untouched; the harness breaks the others from outside (by
 * wrapping the node's Transport or FileSystem), never through a hook in product code.
 */
export const BROKEN_INGESTER_MODES = [
  'none',
  /** `ingester.Push` answers success at once and runs the real handler `broken_ack_delay` later. */
  'ack_before_wal',
  /**
   * A shipper that deletes each freshly cut block before uploading it: the block directory
   * goes when the shipper next lists the tenant's directory (needs `long_term`).
   */
  'delete_before_ship',
  /** The mutation canaries' ingesters (`canaries_ingester.ts`, `canaries.ts`). */
  'drop_last_wal_page',
  'double_apply_retry',
  'ignore_ingestion_window',
] as const;

export type BrokenIngesterMode = (typeof BROKEN_INGESTER_MODES)[number];

export interface OutageWindow {
  /** Offsets after the epoch: the writer sends nothing in [fromMs, untilMs) and buffers. */
  fromMs: number;
  untilMs: number;
}

export const QUERY_KINDS = [
  'count_over_time',
  'sum_over_time',
  'max_over_time',
  'sum_count_over_time',
  'sum',
  'count',
] as const;

export type QueryKind = (typeof QUERY_KINDS)[number];

export interface QuerySpec {
  kind: QueryKind;
  tenant: string;
  metric: string;
  /** The range of `*_over_time` kinds (ms); unused for `sum`/`count`. */
  rangeMs: number;
  /** Offsets after the epoch at which the query is evaluated (instant queries). */
  atMs: number[];
}

export interface StrataWorkloadConfig {
  replicationFactor: number;
  heartbeatPeriodMs: number;
  heartbeatTimeoutMs: number;
  /** `tsdb.block_ranges_period[0]`; the §11 floor is head max time − blockRange/2. */
  blockRangeMs: number;
  brokenIngester: BrokenIngesterMode;
  brokenAckDelayMs: number;
  /** A deliberately broken querier of the mutation canaries (`canaries.ts`). */
  brokenQuerier: BrokenQuerier;
  /** The long-term path (shipping, store-gateways, cleaner); undefined: ingesters only. */
  longTerm: LongTermConfig | undefined;
  tenants: TenantSpec[];
  scrape: {
    /** Series per writer per tenant. */
    series: number;
    /** Distinct metric names among a writer's series (`strata_sim_m0`, `strata_sim_m1`, …). */
    metrics: number;
    intervalMs: number;
    /** Each scrape fires up to this much after its slot (uniform), so timestamps wander. */
    jitterMs: number;
    /** Every `everyMs`, `fraction` of the series are replaced by new series (0: no churn). */
    churnEveryMs: number;
    churnFraction: number;
    startMs: number;
    /** No scrape starts at or after this offset; the queue still drains. */
    stopMs: number;
  };
  remoteWrite: {
    batchSize: number;
    timeoutMs: number;
    minBackoffMs: number;
    maxBackoffMs: number;
  };
  /** Outage windows of writer nodes, by node name. */
  outages: ReadonlyMap<string, OutageWindow[]>;
  reader: {
    /** When the final reads start (offset after the epoch); must follow the last scrape. */
    readAtMs: number;
    /**
     * Earlier read phases (offsets, ascending, before `readAtMs`): every tenant is read
     * whole, like the final read, and judged the same way (e.g. before and after the
     * ingesters deleted their local blocks).
     */
    phasesMs: number[];
    /** Period of the query mix during the run (0: none). */
    intervalMs: number;
    queries: QuerySpec[];
  };
  /** The model's margin between an acknowledgement and the replicas having applied it. */
  settleMs: number;
  /**
   * Where every ring lives: the cluster's shared in-memory KV (reached as the `kv` service),
   * or memberlist gossip between the Strata nodes (`-ring.store=memberlist`).
   */
  ringStore: 'inmemory' | 'memberlist';
  /** The distributors' HA tracker and the writers that are HA replicas (`ha_tracker`). */
  ha: HaConfig | undefined;
  /** Tenant limits changed by runtime-config reloads, probed by the limits writer (`limits`). */
  limits: LimitsScenarioConfig | undefined;
  /** The query-frontend, its caches and the reader's load on it (`frontend`). */
  frontend: FrontendSimConfig | undefined;
}

export const STRATA_ROLES = [
  'distributor',
  'ingester',
  'querier',
  'store-gateway',
  'compactor',
  'writer',
  'reader',
  'operator',
  'all',
  'query-frontend',
] as const;

export function parseStrataConfig(
  raw: Readonly<Record<string, unknown>>,
  where: string,
): StrataWorkloadConfig {
  const o = readObject(raw, where, [
    'replication_factor',
    'heartbeat_period',
    'heartbeat_timeout',
    'block_range',
    'broken_ingester',
    'broken_ack_delay',
    'broken_querier',
    'broken_ignored_ingester',
    'tenants',
    'scrape',
    'remote_write',
    'outages',
    'reader',
    'settle',
    'long_term',
    'ring_store',
    'ha_tracker',
    'limits',
    'frontend',
  ]);
  const ringStore = readString(o.ring_store, `${where}.ring_store`, 'inmemory');
  if (ringStore !== 'inmemory' && ringStore !== 'memberlist')
    throw new ScenarioError(
      `${where}.ring_store: unknown store ${JSON.stringify(ringStore)} (known: inmemory, memberlist)`,
    );
  const broken = readString(o.broken_ingester, `${where}.broken_ingester`, 'none');
  if (!(BROKEN_INGESTER_MODES as readonly string[]).includes(broken)) {
    throw new ScenarioError(
      `${where}.broken_ingester: unknown mode ${JSON.stringify(broken)} (known: ${BROKEN_INGESTER_MODES.join(', ')})`,
    );
  }
  const tenants = parseTenants(o.tenants, `${where}.tenants`);
  const scrape = parseScrape(o.scrape, `${where}.scrape`);
  const rw = readObject(o.remote_write, `${where}.remote_write`, [
    'batch_size',
    'timeout',
    'min_backoff',
    'max_backoff',
  ]);
  const remoteWrite = {
    batchSize: readNumber(rw.batch_size, `${where}.remote_write.batch_size`, 100, {
      min: 1,
      integer: true,
    }),
    timeoutMs: positive(rw.timeout, `${where}.remote_write.timeout`, 5_000),
    minBackoffMs: positive(rw.min_backoff, `${where}.remote_write.min_backoff`, 30),
    maxBackoffMs: positive(rw.max_backoff, `${where}.remote_write.max_backoff`, 5_000),
  };
  if (remoteWrite.maxBackoffMs < remoteWrite.minBackoffMs)
    throw new ScenarioError(`${where}.remote_write.max_backoff: below min_backoff`);
  const names = new Set(tenants.map((t) => t.name));
  const reader = parseReader(o.reader, `${where}.reader`, names, scrape.stopMs);
  const blockRangeMs = positive(o.block_range, `${where}.block_range`, 2 * 3_600_000);
  const longTerm = parseLongTerm(o.long_term, `${where}.long_term`, blockRangeMs);
  if (broken === 'delete_before_ship' && longTerm === undefined)
    throw new ScenarioError(
      `${where}.broken_ingester: delete_before_ship needs ${where}.long_term (nothing ships without it)`,
    );
  return {
    replicationFactor: readNumber(o.replication_factor, `${where}.replication_factor`, 3, {
      min: 1,
      integer: true,
    }),
    heartbeatPeriodMs: positive(o.heartbeat_period, `${where}.heartbeat_period`, 1_000),
    heartbeatTimeoutMs: positive(o.heartbeat_timeout, `${where}.heartbeat_timeout`, 10_000),
    blockRangeMs,
    brokenIngester: broken as BrokenIngesterMode,
    brokenAckDelayMs: positive(o.broken_ack_delay, `${where}.broken_ack_delay`, 500),
    brokenQuerier: parseBrokenQuerier(o.broken_querier, o.broken_ignored_ingester, where),
    longTerm,
    tenants,
    scrape,
    remoteWrite,
    outages: parseOutages(o.outages, `${where}.outages`),
    reader,
    settleMs: readDuration(o.settle, `${where}.settle`, 1_000),
    ringStore,
    ha: parseHaConfig(o.ha_tracker, `${where}.ha_tracker`),
    limits: parseLimitsConfig(o.limits, `${where}.limits`),
    frontend: parseFrontendSim(o.frontend, `${where}.frontend`, names),
  };
}

function positive(value: unknown, where: string, fallback: number): number {
  const ms = readDuration(value, where, fallback);
  if (ms <= 0) throw new ScenarioError(`${where}: must be positive, got ${ms}ms`);
  return ms;
}

function parseTenants(value: unknown, where: string): TenantSpec[] {
  const list = readArray(value, where);
  if (list.length === 0) return [{ name: 'tenant-1', outOfOrderWindowMs: 0 }];
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const w = `${where}[${i}]`;
    const t = readObject(raw, w, ['name', 'out_of_order_time_window']);
    const name = readString(t.name, `${w}.name`);
    // Tenants become directory names on the ingesters and header values.
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name))
      throw new ScenarioError(`${w}.name: invalid tenant id ${JSON.stringify(name)}`);
    if (seen.has(name)) throw new ScenarioError(`${w}.name: duplicate tenant ${name}`);
    seen.add(name);
    return {
      name,
      outOfOrderWindowMs: readDuration(
        t.out_of_order_time_window,
        `${w}.out_of_order_time_window`,
        0,
      ),
    };
  });
}

function parseScrape(value: unknown, where: string): StrataWorkloadConfig['scrape'] {
  const s = readObject(value, where, [
    'series',
    'metrics',
    'interval',
    'jitter',
    'churn',
    'start',
    'stop',
  ]);
  const intervalMs = positive(s.interval, `${where}.interval`, 15_000);
  const jitterMs = readDuration(s.jitter, `${where}.jitter`, 0);
  if (jitterMs >= intervalMs)
    throw new ScenarioError(
      `${where}.jitter: must be below the interval (${formatDuration(intervalMs)}), got ${formatDuration(jitterMs)}`,
    );
  const churn = readObject(s.churn, `${where}.churn`, ['every', 'fraction']);
  const startMs = readDuration(s.start, `${where}.start`, 5_000);
  const stopMs = positive(s.stop, `${where}.stop`, 60_000);
  if (stopMs <= startMs) throw new ScenarioError(`${where}.stop: must follow start`);
  const series = readNumber(s.series, `${where}.series`, 5, { min: 1, integer: true });
  return {
    series,
    metrics: readNumber(s.metrics, `${where}.metrics`, 1, { min: 1, max: series, integer: true }),
    intervalMs,
    jitterMs,
    churnEveryMs: readDuration(churn.every, `${where}.churn.every`, 0),
    churnFraction: readNumber(churn.fraction, `${where}.churn.fraction`, 0, { min: 0, max: 1 }),
    startMs,
    stopMs,
  };
}

function parseOutages(value: unknown, where: string): Map<string, OutageWindow[]> {
  const o = readObject(value, where, Object.keys(value ?? {}));
  const out = new Map<string, OutageWindow[]>();
  for (const [node, list] of Object.entries(o)) {
    const windows = readArray(list, `${where}.${node}`).map((raw, i) => {
      const w = `${where}.${node}[${i}]`;
      const f = readObject(raw, w, ['from', 'until']);
      const fromMs = readDuration(f.from, `${w}.from`);
      const untilMs = readDuration(f.until, `${w}.until`);
      if (untilMs <= fromMs) throw new ScenarioError(`${w}.until: must follow from`);
      return { fromMs, untilMs };
    });
    out.set(node, windows);
  }
  return out;
}

function parseReader(
  value: unknown,
  where: string,
  tenants: ReadonlySet<string>,
  stopMs: number,
): StrataWorkloadConfig['reader'] {
  const r = readObject(value, where, ['read_at', 'read_phases', 'interval', 'queries']);
  const readAtMs = positive(r.read_at, `${where}.read_at`, stopMs + 30_000);
  if (readAtMs <= stopMs)
    throw new ScenarioError(
      `${where}.read_at: must follow scrape.stop (${formatDuration(stopMs)}), got ${formatDuration(readAtMs)}`,
    );
  const phasesMs = readArray(r.read_phases, `${where}.read_phases`).map((raw, i) => {
    const w = `${where}.read_phases[${i}]`;
    const at = positive(raw, w, 0);
    if (at >= readAtMs)
      throw new ScenarioError(
        `${w}: must come before read_at (${formatDuration(readAtMs)}), got ${formatDuration(at)}`,
      );
    return at;
  });
  phasesMs.forEach((at, i) => {
    if (i > 0 && at <= (phasesMs[i - 1] as number))
      throw new ScenarioError(`${where}.read_phases[${i}]: phases must be in ascending order`);
  });
  const queries = readArray(r.queries, `${where}.queries`).map((raw, i): QuerySpec => {
    const w = `${where}.queries[${i}]`;
    const q = readObject(raw, w, ['kind', 'tenant', 'metric', 'range', 'at']);
    const kind = readString(q.kind, `${w}.kind`);
    if (!(QUERY_KINDS as readonly string[]).includes(kind))
      throw new ScenarioError(
        `${w}.kind: unknown query kind ${JSON.stringify(kind)} (known: ${QUERY_KINDS.join(', ')})`,
      );
    const tenant = readString(q.tenant, `${w}.tenant`, [...tenants][0]);
    if (!tenants.has(tenant))
      throw new ScenarioError(`${w}.tenant: unknown tenant ${JSON.stringify(tenant)}`);
    const atList = q.at === undefined ? [stopMs] : readArray(q.at, `${w}.at`);
    return {
      kind: kind as QueryKind,
      tenant,
      metric: readString(q.metric, `${w}.metric`, 'strata_sim_m0'),
      rangeMs: positive(q.range, `${w}.range`, 300_000),
      atMs: atList.map((a, j) => readDuration(a, `${w}.at[${j}]`)),
    };
  });
  return {
    readAtMs,
    phasesMs,
    intervalMs: readDuration(r.interval, `${where}.interval`, 0),
    queries,
  };
}

/** The PromQL text of a query spec. */
export function queryText(q: QuerySpec): string {
  const range = formatDuration(q.rangeMs);
  switch (q.kind) {
    case 'count_over_time':
    case 'sum_over_time':
    case 'max_over_time':
      return `${q.kind}(${q.metric}[${range}])`;
    case 'sum_count_over_time':
      return `sum(count_over_time(${q.metric}[${range}]))`;
    case 'sum':
    case 'count':
      return `${q.kind}(${q.metric})`;
  }
}

export function describeStrata(c: StrataWorkloadConfig): string[] {
  const s = c.scrape;
  const lines = [
    `strata: RF ${c.replicationFactor}, heartbeat ${formatDuration(c.heartbeatPeriodMs)} (timeout ${formatDuration(c.heartbeatTimeoutMs)}), block range ${formatDuration(c.blockRangeMs)}, rings on ${c.ringStore === 'memberlist' ? 'memberlist gossip' : 'the in-memory KV'}`,
    `  tenants: ${c.tenants.map((t) => (t.outOfOrderWindowMs > 0 ? `${t.name} (out-of-order window ${formatDuration(t.outOfOrderWindowMs)})` : `${t.name} (default config)`)).join(', ')}`,
    `  each writer: ${s.series} series per tenant (${s.metrics} metric name(s)), scrape every ${formatDuration(s.intervalMs)} (jitter ${formatDuration(s.jitterMs)}) from +${formatDuration(s.startMs)} to +${formatDuration(s.stopMs)}` +
      (s.churnEveryMs > 0 && s.churnFraction > 0
        ? `, churn ${Math.round(s.churnFraction * 100)}% every ${formatDuration(s.churnEveryMs)}`
        : ''),
    `  remote write: batches of ${c.remoteWrite.batchSize}, timeout ${formatDuration(c.remoteWrite.timeoutMs)}, backoff ${formatDuration(c.remoteWrite.minBackoffMs)}..${formatDuration(c.remoteWrite.maxBackoffMs)} on 5xx/429, drop on 4xx`,
  ];
  for (const [node, windows] of c.outages)
    lines.push(
      `  outage of ${node}: ${windows.map((w) => `+${formatDuration(w.fromMs)}..+${formatDuration(w.untilMs)}`).join(', ')} (buffers, then catches up oldest first)`,
    );
  if (c.longTerm !== undefined) lines.push(describeLongTerm(c.longTerm));
  if (c.ha !== undefined) lines.push(...describeHa(c.ha));
  if (c.limits !== undefined) lines.push(...describeLimits(c.limits));
  if (c.frontend !== undefined) lines.push(describeFrontendSim(c.frontend));
  lines.push(
    `  reader: ${c.reader.phasesMs.map((p) => `reads at +${formatDuration(p)}, `).join('')}final reads at +${formatDuration(c.reader.readAtMs)}, ${c.reader.queries.length} model queries` +
      (c.reader.intervalMs > 0 ? `, query mix every ${formatDuration(c.reader.intervalMs)}` : ''),
  );
  if (c.brokenIngester === 'ack_before_wal')
    lines.push(
      `  [DELIBERATE BUG: ingesters ack_before_wal, real handler runs ${formatDuration(c.brokenAckDelayMs)} after the ack]`,
    );
  if (c.brokenIngester === 'delete_before_ship')
    lines.push(
      '  [DELIBERATE BUG: ingesters delete_before_ship, each cut block is deleted before the shipper uploads it]',
    );
  lines.push(...describeCanaryModes(c));
  return lines;
}

export type { TenantSpec } from './tenant_spec.js';
