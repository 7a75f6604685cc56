/**
 * The ring client (Cortex's `ring.Ring`): keeps the latest descriptor of one ring key from
 * the KV store, a token table sorted for lookups, and answers which instances hold a key.
 */
import type { Counter } from 'prom-client';
import type { Clock, KV, Logger, MetricsRegistry } from '../runtime/index.js';
import { isAbortError, registeredCounter } from '../runtime/index.js';
import { BasicService } from '../services/index.js';
import { JSON_RING_CODEC, type RingCodec } from './codec.js';
import {
  emptyRingDesc,
  isInstanceHealthy,
  REPORTING,
  type Operation,
  type RingDesc,
} from './model.js';
import {
  EMPTY_RING_MESSAGE,
  filterReplicaSet,
  RingError,
  TOO_MANY_UNHEALTHY_MESSAGE,
  type ReplicationSet,
  type RingInstance,
} from './replication.js';
import { tokenOwnership, type TokenOwner } from './tokens.js';

export interface RingConfig {
  /** Ring name for logs, metrics and pages (`ingester`, `distributor`...). */
  name: string;
  /** KV key holding the descriptor (Cortex: `ring` for ingesters). */
  key: string;
  replicationFactor: number;
  /** Instances whose last heartbeat is older are unhealthy; 0 disables the check. */
  heartbeatTimeoutMs: number;
  zoneAwarenessEnabled: boolean;
}

export interface RingDeps {
  kv: KV;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  codec?: RingCodec;
}

interface TableEntry extends TokenOwner {
  zone: string;
  /** The owner's descriptor with its ID (built once per descriptor, shared by lookups). */
  instance: RingInstance;
}

/** One token-owning instance as the token table sees it. */
interface TokenLayout {
  id: string;
  zone: string;
  tokens: readonly number[];
}

function sameLayout(a: readonly TokenLayout[], b: readonly TokenLayout[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as TokenLayout;
    const y = b[i] as TokenLayout;
    if (x.id !== y.id || x.zone !== y.zone || x.tokens.length !== y.tokens.length) return false;
    if (x.tokens === y.tokens) continue;
    for (let j = 0; j < x.tokens.length; j++) if (x.tokens[j] !== y.tokens[j]) return false;
  }
  return true;
}

/** A read view of a ring; what distributors, queriers and the status page depend on. */
export interface ReadRing {
  /** The ring's name (`ingester`, `distributor`...). */
  readonly ringName: string;
  readonly replicationFactor: number;
  readonly heartbeatTimeoutMs: number;
  get(key: number, operation: Operation): ReplicationSet;
  getAllHealthy(operation: Operation): RingInstance[];
  getReplicationSetForOperation(operation: Operation): ReplicationSet;
  instancesCount(): number;
  healthyInstancesCount(): number;
  /** The current descriptor (do not mutate). */
  desc(): RingDesc;
  /** Fraction of the ring (0..1) each instance owns. */
  ownership(): Map<string, number>;
  /** Whether an instance counts as healthy on the status page. */
  isHealthy(instance: RingInstance): boolean;
}

export class Ring extends BasicService implements ReadRing {
  private current: RingDesc = emptyRingDesc();
  private table: TableEntry[] = [];
  /** Every instance of `current` with its ID, sorted by ID (rebuilt with the descriptor). */
  private all: RingInstance[] = [];
  private zones: string[] = [];
  /** What `table` was built from: the non-LEFT instances' IDs, zones and tokens. */
  private layout: TokenLayout[] = [];
  private readonly codec: RingCodec;
  private readonly decodeErrors: Counter;

  constructor(
    private readonly config: RingConfig,
    private readonly deps: RingDeps,
  ) {
    super(`${config.name}-ring`, {
      starting: async (signal) => {
        this.apply(await this.deps.kv.get(this.config.key, signal));
      },
      running: (signal) => this.watch(signal),
    });
    if (!Number.isSafeInteger(config.replicationFactor) || config.replicationFactor < 1) {
      throw new RangeError(`replication factor must be >= 1, got ${config.replicationFactor}`);
    }
    this.codec = deps.codec ?? JSON_RING_CODEC;
    this.decodeErrors = registeredCounter(
      deps.metrics,
      'strata_ring_decode_errors_total',
      'Ring descriptors read from the KV store that could not be decoded.',
      ['name'],
    );
  }

  get ringName(): string {
    return this.config.name;
  }

  get replicationFactor(): number {
    return this.config.replicationFactor;
  }

  get heartbeatTimeoutMs(): number {
    return this.config.heartbeatTimeoutMs;
  }

  private async watch(signal: AbortSignal): Promise<void> {
    try {
      await this.deps.kv.watchKey(this.config.key, signal, (value) => {
        this.apply(value);
        return true;
      });
    } catch (err) {
      if (!isAbortError(err)) throw err;
    }
  }

  private apply(value: Uint8Array | undefined): void {
    try {
      this.setDesc(this.codec.decode(value));
    } catch (err) {
      // Keep serving the last good ring: a corrupt value must not empty the ring.
      this.decodeErrors.inc({ name: this.config.name });
      this.deps.logger.error('failed to decode ring descriptor; keeping the previous one', {
        ring: this.config.name,
        err: (err as Error).message,
      });
    }
  }

  /** Replaces the descriptor (the watch calls this; tests may too). */
  setDesc(desc: RingDesc): void {
    const zones = new Set<string>();
    const all: RingInstance[] = [];
    const layout: TokenLayout[] = [];
    const byId = new Map<string, RingInstance>();
    for (const id of Object.keys(desc.ingesters).sort()) {
      const inst = desc.ingesters[id] as RingDesc['ingesters'][string];
      const instance: RingInstance = { ...inst, id };
      all.push(instance);
      if (inst.state === 'LEFT') continue;
      zones.add(inst.zone);
      layout.push({ id, zone: inst.zone, tokens: inst.tokens });
      byId.set(id, instance);
    }
    let table: TableEntry[];
    if (sameLayout(layout, this.layout)) {
      // Most updates are heartbeats: same owners and tokens, new timestamps. The sorted order
      // of the last table still holds; only the descriptors it points to are new.
      table = this.table.map((e) => ({
        token: e.token,
        instanceId: e.instanceId,
        zone: e.zone,
        instance: byId.get(e.instanceId) as RingInstance,
      }));
    } else {
      table = [];
      for (const { id, zone, tokens } of layout) {
        const instance = byId.get(id) as RingInstance;
        for (const token of tokens) table.push({ token, instanceId: id, zone, instance });
      }
      // Ties cannot happen in a consistent ring; ordering them by ID keeps lookups deterministic.
      table.sort((a, b) => a.token - b.token || (a.instanceId < b.instanceId ? -1 : 1));
    }
    this.all = all;
    this.layout = layout;
    this.current = desc;
    this.table = table;
    this.zones = [...zones].sort();
  }

  desc(): RingDesc {
    return this.current;
  }

  /**
   * The replica set for `key` (Cortex's `Ring.Get`): walk the tokens clockwise from the
   * first token greater than `key`, taking each instance once (and each zone once when
   * zone-aware), until `replicationFactor` instances are chosen; an instance in a state the
   * operation extends on makes the walk take one more. Then unhealthy ones are filtered out
   * and the quorum checked.
   */
  get(key: number, operation: Operation): ReplicationSet {
    const table = this.table;
    if (table.length === 0) throw new RingError(EMPTY_RING_MESSAGE);
    const zoneAware = this.config.zoneAwarenessEnabled;
    const maxInstances = this.all.length;
    const maxZones = this.zones.length;
    let n = this.config.replicationFactor;
    const chosen: RingInstance[] = [];
    const hosts = new Set<string>();
    const zones = new Set<string>();
    let i = searchToken(table, key);
    for (
      let iterations = 0;
      hosts.size < Math.min(maxInstances, n) && zones.size < maxZones && iterations < table.length;
      iterations++, i = (i + 1) % table.length
    ) {
      const entry = table[i];
      if (entry === undefined) continue;
      if (hosts.has(entry.instanceId)) continue;
      if (zoneAware && entry.zone !== '' && zones.has(entry.zone)) continue;
      const inst = entry.instance;
      hosts.add(entry.instanceId);
      if (operation.shouldExtendReplicaSet(inst.state)) {
        n++;
      } else if (zoneAware && entry.zone !== '') {
        // Only a zone that contributes a usable replica is closed: an extended replica
        // should come from the same zone.
        zones.add(entry.zone);
      }
      chosen.push(inst);
    }
    const { healthy, maxErrors } = filterReplicaSet(chosen, operation, {
      replicationFactor: this.config.replicationFactor,
      heartbeatTimeoutMs: this.config.heartbeatTimeoutMs,
      zoneAwarenessEnabled: zoneAware,
      nowMs: this.deps.clock.now(),
    });
    return { instances: healthy, maxErrors, maxUnavailableZones: 0 };
  }

  /** Every instance healthy for `operation`, sorted by ID. */
  getAllHealthy(operation: Operation): RingInstance[] {
    if (this.all.length === 0) throw new RingError(EMPTY_RING_MESSAGE);
    const now = this.deps.clock.now();
    return this.instances().filter((inst) =>
      isInstanceHealthy(inst, operation, this.config.heartbeatTimeoutMs, now),
    );
  }

  /**
   * The set for an operation over the whole ring (queries that fan out to every instance,
   * Cortex's `GetReplicationSetForOperation`). Without zones it tolerates RF/2 failures among
   * the ring's instances; with zones it tolerates whole failed zones up to a minority of the
   * replicated zones and drops the instances of zones that already have a failure.
   */
  getReplicationSetForOperation(operation: Operation): ReplicationSet {
    const all = this.instances();
    if (all.length === 0) throw new RingError(EMPTY_RING_MESSAGE);
    const now = this.deps.clock.now();
    const rf = this.config.replicationFactor;
    let healthy: RingInstance[] = [];
    const failedZones = new Set<string>();
    for (const inst of all) {
      if (isInstanceHealthy(inst, operation, this.config.heartbeatTimeoutMs, now))
        healthy.push(inst);
      else failedZones.add(inst.zone);
    }
    if (this.config.zoneAwarenessEnabled) {
      const replicatedZones = Math.min(this.zones.length, rf);
      let maxUnavailableZones = Math.floor(replicatedZones / 2);
      if (failedZones.size > maxUnavailableZones) throw new RingError(TOO_MANY_UNHEALTHY_MESSAGE);
      if (failedZones.size > 0) {
        healthy = healthy.filter((inst) => !failedZones.has(inst.zone));
        maxUnavailableZones -= failedZones.size;
      }
      return { instances: healthy, maxErrors: 0, maxUnavailableZones };
    }
    const required = Math.max(all.length, rf) - Math.floor(rf / 2);
    if (healthy.length < required) throw new RingError(TOO_MANY_UNHEALTHY_MESSAGE);
    return { instances: healthy, maxErrors: healthy.length - required, maxUnavailableZones: 0 };
  }

  instancesCount(): number {
    return this.all.length;
  }

  healthyInstancesCount(): number {
    const now = this.deps.clock.now();
    return this.instances().filter((i) =>
      isInstanceHealthy(i, REPORTING, this.config.heartbeatTimeoutMs, now),
    ).length;
  }

  isHealthy(instance: RingInstance): boolean {
    return isInstanceHealthy(
      instance,
      REPORTING,
      this.config.heartbeatTimeoutMs,
      this.deps.clock.now(),
    );
  }

  ownership(): Map<string, number> {
    return tokenOwnership(this.table);
  }

  private instances(): readonly RingInstance[] {
    return this.all;
  }
}

/** Index of the first token strictly greater than `key`, wrapping to 0. */
function searchToken(table: readonly TokenOwner[], key: number): number {
  let lo = 0;
  let hi = table.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((table[mid]?.token ?? 0) > key) hi = mid;
    else lo = mid + 1;
  }
  return lo === table.length ? 0 : lo;
}
