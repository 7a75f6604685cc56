/**
 * The ring's data model (Cortex's `ring.proto`: `Desc` and `InstanceDesc`), instance states,
 * the operations that decide which states a request may use, and heartbeat health.
 */

/**
 * Instance states. The numeric values are Cortex's enum values (READONLY is the state newer
 * Cortex added for ingesters being scaled down), kept so a future protobuf codec can reuse
 * them; the JSON codec stores the names.
 */
export const INSTANCE_STATES = [
  'ACTIVE',
  'LEAVING',
  'PENDING',
  'JOINING',
  'LEFT',
  'READONLY',
] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];

export function isInstanceState(value: unknown): value is InstanceState {
  return typeof value === 'string' && (INSTANCE_STATES as readonly string[]).includes(value);
}

/** One member of a ring. */
export interface InstanceDesc {
  /** Host:port other components call. */
  addr: string;
  /** Last heartbeat, Unix seconds (Cortex's `timestamp`). */
  timestamp: number;
  state: InstanceState;
  /** Sorted ascending, unique. */
  tokens: number[];
  /** Availability zone; empty when zones are not used. */
  zone: string;
  /** When the instance first registered, Unix seconds; 0 when unknown. */
  registeredTimestamp: number;
}

/** A whole ring: instance ID → descriptor. */
export interface RingDesc {
  ingesters: Record<string, InstanceDesc>;
}

/**
 * A descriptor with a prototype-less instance map: instance IDs are arbitrary strings, and
 * an ID such as `constructor` or `__proto__` must be an ordinary key.
 */
export function emptyRingDesc(): RingDesc {
  return { ingesters: Object.create(null) as Record<string, InstanceDesc> };
}

/**
 * Which instance states an operation may use and whether a member in some other state makes
 * the replica set grow by one (Cortex's `ring.Operation`).
 */
export interface Operation {
  readonly name: string;
  readonly healthyStates: ReadonlySet<InstanceState>;
  /** True when an instance in `state` should make the walk pick one more instance. */
  shouldExtendReplicaSet(state: InstanceState): boolean;
}

function op(
  name: string,
  healthy: InstanceState[],
  extend: (s: InstanceState) => boolean,
): Operation {
  return { name, healthyStates: new Set(healthy), shouldExtendReplicaSet: extend };
}

/**
 * Writes go to ACTIVE instances only. A chosen instance in any other state (JOINING,
 * LEAVING, READONLY...) still occupies its slot in the walk, so the set is extended by one to
 * put the extra replica somewhere; the filter then drops the non-ACTIVE one.
 */
export const WRITE: Operation = op('write', ['ACTIVE'], (s) => s !== 'ACTIVE');

/** Like WRITE without extension (Cortex's `WriteNoExtend`). */
export const WRITE_NO_EXTEND: Operation = op('write-no-extend', ['ACTIVE'], () => false);

/**
 * Reads may use every state that can hold data. The set is extended for the remaining states
 * (PENDING, LEFT) so reads reach the same instances writes extended to.
 */
export const READ: Operation = op(
  'read',
  ['ACTIVE', 'PENDING', 'LEAVING', 'JOINING', 'READONLY'],
  (s) => s !== 'ACTIVE' && s !== 'LEAVING' && s !== 'JOINING' && s !== 'READONLY',
);

/** Health for reporting (status page, counts): only the heartbeat matters. */
export const REPORTING: Operation = op('reporting', [...INSTANCE_STATES], () => false);

/**
 * True when the last heartbeat is at most `heartbeatTimeoutMs` old. A timeout of 0 or less
 * disables the check (dskit's behaviour), which tests and single-process setups rely on.
 */
export function isHeartbeatHealthy(
  instance: InstanceDesc,
  heartbeatTimeoutMs: number,
  nowMs: number,
): boolean {
  if (heartbeatTimeoutMs <= 0) return true;
  return nowMs - instance.timestamp * 1000 <= heartbeatTimeoutMs;
}

/** Healthy for `operation`: an allowed state and a recent heartbeat. */
export function isInstanceHealthy(
  instance: InstanceDesc,
  operation: Operation,
  heartbeatTimeoutMs: number,
  nowMs: number,
): boolean {
  return (
    operation.healthyStates.has(instance.state) &&
    isHeartbeatHealthy(instance, heartbeatTimeoutMs, nowMs)
  );
}

/** Every token of the ring, sorted ascending. */
export function allTokens(desc: RingDesc): number[] {
  const out: number[] = [];
  for (const inst of Object.values(desc.ingesters)) out.push(...inst.tokens);
  return out.sort((a, b) => a - b);
}

/** Seconds since the epoch for a Clock reading in milliseconds. */
export function unixSeconds(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}
