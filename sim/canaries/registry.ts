/**
 * The mutation canaries: deliberately broken builds the scenario suite must catch. Each one
 * is a named edit of a scenario's workload section that switches on a broken mode the
 * harness builds from outside the product (wrapped Env parts, a changed node setting); no
 * production code path reads any of it. A scenario that has no room for a canary (an HA
 * canary in a scenario without HA writers) is not applicable rather than a miss.
 */

/** The environment variable that selects canaries for the runner (`sim:canaries`). */
export const CANARY_ENV = 'STRATA_SIM_CANARY';
/** The unbroken build, run over the same seeds to show the suite passes without a canary. */
export const NO_CANARY = 'none';

export interface ScenarioNode {
  name: string;
  run: string;
}

export interface Canary {
  name: string;
  /** What the broken build does, for the report. */
  description: string;
  /**
   * Switches the canary on in `workload` (a scenario's `workload` mapping, changed in
   * place); false when the scenario cannot host it.
   */
  apply(workload: Record<string, unknown>, nodes: readonly ScenarioNode[]): boolean;
}

/** One `broken_<component>` key of the Strata workload, when the scenario has not set it. */
function brokenKey(
  key: 'broken_ingester' | 'broken_querier',
  mode: string,
  extra: Record<string, unknown> = {},
): Canary['apply'] {
  return (workload) => {
    if (workload['kind'] !== 'strata') return false;
    const current = workload[key];
    if (current !== undefined && current !== 'none') return false;
    Object.assign(workload, { [key]: mode, ...extra });
    return true;
  };
}

/**
 * The `broken` key of an optional workload section (`ha_tracker`, `limits`, `frontend`) the
 * scenario has.
 */
function brokenSection(section: string, mode: string): Canary['apply'] {
  return (workload) => {
    const s = workload[section];
    if (workload['kind'] !== 'strata' || typeof s !== 'object' || s === null) return false;
    (s as Record<string, unknown>)['broken'] = mode;
    return true;
  };
}

export const CANARIES: readonly Canary[] = [
  {
    name: 'ack_before_wal',
    description: 'ingesters acknowledge a push 5s before they write it to the WAL',
    apply: brokenKey('broken_ingester', 'ack_before_wal', { broken_ack_delay: '5s' }),
  },
  {
    name: 'skip_read_dedup',
    description: "queriers return every replica's copy of a series instead of merging them",
    apply: brokenKey('broken_querier', 'skip_dedup'),
  },
  {
    name: 'ignore_ingestion_window',
    description: 'ingesters take samples however far behind the head they are',
    apply: brokenKey('broken_ingester', 'ignore_ingestion_window'),
  },
  {
    name: 'double_apply_retry',
    description: 'ingesters apply a push they already applied again, 1ms later',
    apply: brokenKey('broken_ingester', 'double_apply_retry'),
  },
  {
    name: 'drop_last_wal_page',
    description: "an ingester's WAL replay loses the newest segment's last 32 KiB page",
    apply: brokenKey('broken_ingester', 'drop_last_wal_page'),
  },
  {
    name: 'ha_never_fails_over',
    description: 'the HA tracker never sees the elected replica time out',
    apply: brokenSection('ha_tracker', 'never_failover'),
  },
  {
    name: 'rate_limit_off_by_one_burst',
    description: 'the distributor lets one burst too many through the ingestion rate limit',
    apply: brokenSection('limits', 'off_by_one_burst'),
  },
  {
    name: 'querier_ignores_ingester',
    description: "queriers count the last ingester's answers as empty successes",
    apply: (workload, nodes) => {
      const last = nodes.filter((n) => n.run === 'ingester').at(-1);
      if (last === undefined) return false;
      return brokenKey('broken_querier', 'ignore_ingester', {
        broken_ignored_ingester: last.name,
      })(workload, nodes);
    },
  },
  {
    name: 'fifo_frontend_queue',
    description: "the query-frontend's queue serves all tenants in one FIFO instead of round-robin",
    apply: brokenSection('frontend', 'fifo_queue'),
  },
];

/**
 * The scenarios the runner uses by default: the write and read path's, and the
 * query-frontend's (about 15s a seed, the only scenario that hosts `fifo_frontend_queue`).
 * The compactor scenarios take tens of seconds a seed and none of these canaries touches the
 * compactor (its own broken modes are tested in `scenarios.test.ts`); name them with
 * `--scenario`.
 */
export const DEFAULT_SUITE = [
  'ingester-crash',
  'late-sender',
  'scale-out',
  'ha-tracker',
  'limits',
  'long-term',
  'query-frontend',
] as const;

export function findCanary(name: string): Canary | undefined {
  return CANARIES.find((c) => c.name === name);
}

/**
 * The canaries `STRATA_SIM_CANARY` selects: a comma-separated list of names (all when unset
 * or empty). Unknown names are an error naming the known ones.
 */
export function canariesFromEnv(value: string | undefined): Canary[] {
  if (value === undefined || value.trim() === '') return [...CANARIES];
  return value.split(',').map((raw) => {
    const name = raw.trim();
    const c = findCanary(name);
    if (c === undefined)
      throw new Error(
        `${CANARY_ENV}: unknown canary ${JSON.stringify(name)} (known: ${CANARIES.map((k) => k.name).join(', ')})`,
      );
    return c;
  });
}
