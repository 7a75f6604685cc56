import type { SimRuntimeConfig, ThrottleLimit, WrongValuesMode } from '../runtime/index.js';
import type { CheckSpec } from '../workloads/index.js';

export type { CheckResult, CheckSpec } from '../workloads/index.js';

/** A fault the schedule applies at a point of virtual time. */
export type FaultAction =
  /** Cuts every link between the groups (names of nodes or of services `objstore`, `kv`, `cache`). */
  | { kind: 'partition'; groups: string[][]; id: string }
  | { kind: 'partition_one_way'; from: string; to: string; id: string }
  /** Ends one partition (random faults heal their own). */
  | { kind: 'heal_partition'; id: string }
  /** Ends every partition, latency spike and service outage. */
  | { kind: 'heal' }
  | { kind: 'crash'; node: string }
  | { kind: 'power_loss'; node: string }
  | { kind: 'restart'; node: string }
  | { kind: 'stop'; node: string }
  | { kind: 'start'; node: string }
  | { kind: 'latency_spike'; multiplier: number }
  | { kind: 'clock_skew'; node: string; skewMs: number }
  | { kind: 'cache_wipe' }
  | { kind: 'service_down'; service: string }
  | { kind: 'service_up'; service: string }
  /** The object store's injected error rate from now on; 0 ends the burst (so does heal). */
  | { kind: 'objstore_errors'; rate: number }
  /** Object stores throttle at `limit`; without it, back to the configured rate (and on heal). */
  | { kind: 'objstore_throttle'; limit?: ThrottleLimit }
  /**
   * Every network message is lost with probability `rate` from now on; without it, back to the
   * configured `network.loss` (and on heal).
   */
  | { kind: 'message_loss'; rate?: number }
  /**
   * Arms a crash in the middle of the `nth` block upload from now on by any of `nodes`: the
   * uploader crashes right after the store applied the block's `index` (its chunks are in,
   * its meta.json is not), so the block is left partial. Disarmed when it fires.
   */
  | { kind: 'crash_mid_block_upload'; nodes: string[]; nth: number }
  | MemcachedFaultAction;

/** Faults of the simulated memcached servers and DNS (`sim/scenario/memcached_faults.ts`). */
export type MemcachedFaultAction =
  /** The server crashes: its data is lost, its connections reset, new ones refused. */
  | { kind: 'memcached_down'; server: string }
  /** The crashed server starts again, empty. */
  | { kind: 'memcached_up'; server: string }
  /** Every answer of the server is held `delayMs` (0 ends it). */
  | { kind: 'memcached_slow'; server: string; delayMs: number }
  /** The server answers garbage bytes or another key's item (`off` ends it). */
  | { kind: 'memcached_wrong_values'; server: string; mode: WrongValuesMode }
  /** The A records of a DNS name from now on (membership changes). */
  | { kind: 'memcached_dns'; name: string; servers: string[] };

export interface ScheduledFault {
  /** Milliseconds after the scenario epoch. */
  atMs: number;
  action: FaultAction;
  /** `schedule` for explicit entries, `random:<kind>` for generated ones. */
  origin: string;
}

export interface NodeTopology {
  name: string;
  /** The workload role this node runs (e.g. `sender`). */
  run: string;
  clockSkewMs: number;
  /** When the node first starts (ms after the epoch; 0: with the cluster). */
  startAtMs: number;
}

/** Rates of randomly generated faults (per minute of virtual time), drawn from the `faults` stream. */
export interface RandomFaultProfile {
  /** Window in which random faults start (ms after the epoch). */
  fromMs: number;
  untilMs: number;
  crash?: { perMinute: number; nodes: string[]; downForMs: number };
  powerLoss?: { perMinute: number; nodes: string[]; downForMs: number };
  partition?: { perMinute: number; lastsMs: number };
  partitionOneWay?: { perMinute: number; lastsMs: number };
  latencySpike?: { perMinute: number; multiplier: number; lastsMs: number };
  cacheWipe?: { perMinute: number };
  kvUnavailable?: { perMinute: number; lastsMs: number };
  objstoreUnavailable?: { perMinute: number; lastsMs: number };
  clockSkew?: { perMinute: number; nodes: string[]; maxMs: number };
  /** Random faults of the simulated memcached servers (`memcached_random_faults.ts`). */
  memcached?: MemcachedRandomFaults;
}

export interface MemcachedRandomFaults {
  down?: { perMinute: number; servers: string[]; downForMs: number };
  slow?: { perMinute: number; servers: string[]; delayMs: number; lastsMs: number };
  wrongValues?: {
    perMinute: number;
    servers: string[];
    mode: Exclude<WrongValuesMode, 'off'>;
    lastsMs: number;
  };
  /** A random member leaves the DNS answer of `name`, which returns to its declared records. */
  flap?: { perMinute: number; name: string; members: string[]; lastsMs: number };
}

export interface Scenario {
  name: string;
  description: string;
  /** Default seed; the CLI's --seed overrides it. */
  seed: number;
  epochMs: number;
  durationMs: number;
  nodes: NodeTopology[];
  runtime: SimRuntimeConfig;
  faults: RandomFaultProfile;
  schedule: ScheduledFault[];
  workload: { kind: string; config: unknown };
  checks: CheckSpec[];
  /** How to name it on a command line (builtin name or file path), for the replay command. */
  source: string;
}
