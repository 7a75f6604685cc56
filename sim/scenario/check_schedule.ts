import { ScenarioError } from '../fields/index.js';
import type { SimMemcachedConfig } from '../runtime/index.js';
import { checkMemcachedEntry } from './memcached_faults.js';
import { randomlyDownedServers } from './memcached_random_faults.js';
import type { NodeTopology, RandomFaultProfile, ScheduledFault } from './scenario_types.js';

/** What the schedule is checked against. */
export interface ScheduleContext {
  durationMs: number;
  /** `duration` as written in the file, for messages. */
  durationText: string;
  nodes: readonly NodeTopology[];
  faults: RandomFaultProfile;
  /** The scenario's simulated memcached servers and DNS, if any. */
  memcached?: SimMemcachedConfig | undefined;
}

/** A parsed entry with where it came from. */
export interface ScheduleEntry {
  fault: ScheduledFault;
  /** Index in the file's `schedule` list. */
  index: number;
  /** `at` as written, for messages. */
  atText: string;
}

/** What a node is certainly doing at a point of the schedule; `unknown` once anything random may touch it. */
type NodeState = { kind: 'up' | 'down'; since: string } | { kind: 'unknown' };

/**
 * Refuses schedules that cannot mean what their author meant (entries must be in time order
 * already, file order within an instant): an entry after the end of the run, a `heal` with
 * nothing to heal, a `start` of a node that is certainly up, a `crash` or `stop` of a node
 * that is certainly down. Only certainties count: a node random crashes or a
 * `crash_mid_block_upload` may take down is left alone, and so is a `heal` while random
 * partitions, spikes or outages may be on (existing scenarios `start` every compactor after a
 * mid-upload crash, not knowing which one crashed).
 */
export function checkSchedule(entries: readonly ScheduleEntry[], ctx: ScheduleContext): void {
  const randomlyDowned = new Set([
    ...(randomActive(ctx.faults.crash) ? ctx.faults.crash!.nodes : []),
    ...(randomActive(ctx.faults.powerLoss) ? ctx.faults.powerLoss!.nodes : []),
  ]);
  const states = new Map<string, NodeState>(
    ctx.nodes.map((n) => [
      n.name,
      n.startAtMs > 0 || randomlyDowned.has(n.name)
        ? { kind: 'unknown' }
        : { kind: 'up', since: 'with the cluster' },
    ]),
  );
  const randomDisturbanceFromMs = randomDisturbanceStart(ctx.faults);
  // What a `heal` would end, if anything: the last scheduled disturbance not healed since.
  let disturbed = false;
  const memcachedDown = new Map<string, string>();
  const memcachedUncertain = randomlyDownedServers(ctx.faults);
  const track = (node: string, state: NodeState): void => {
    if (!randomlyDowned.has(node)) states.set(node, state);
  };
  for (const { fault, index, atText } of entries) {
    const where = `schedule[${index}]`;
    if (fault.atMs > ctx.durationMs) {
      throw new ScenarioError(
        `${where}.at: ${atText} is after the end of the run (duration ${ctx.durationText})`,
      );
    }
    const a = fault.action;
    const when = `at ${atText}`;
    switch (a.kind) {
      case 'partition':
      case 'partition_one_way':
      case 'latency_spike':
      case 'service_down':
      case 'objstore_errors':
      case 'objstore_throttle':
      case 'message_loss':
        disturbed = true;
        break;
      case 'heal':
        if (!disturbed && fault.atMs < randomDisturbanceFromMs) {
          throw new ScenarioError(
            `${where}.heal: nothing to heal ${when}: no partition, latency spike, outage, error burst or throttle is on`,
          );
        }
        disturbed = false;
        break;
      case 'crash':
      case 'stop':
      case 'start': {
        const s = states.get(a.node);
        const wantUp = a.kind !== 'start';
        if (s !== undefined && s.kind === (wantUp ? 'down' : 'up')) {
          throw new ScenarioError(
            `${where}.${a.kind}: node ${JSON.stringify(a.node)} is already ${s.kind} ${when} (${s.since}), so this ${a.kind} would do nothing`,
          );
        }
        track(a.node, { kind: wantUp ? 'down' : 'up', since: `${a.kind} at ${atText}` });
        break;
      }
      case 'power_loss':
        track(a.node, { kind: 'down', since: `power_loss at ${atText}` });
        break;
      case 'restart':
        track(a.node, { kind: 'up', since: `restart at ${atText}` });
        break;
      case 'crash_mid_block_upload':
        for (const n of a.nodes) track(n, { kind: 'unknown' });
        break;
      case 'memcached_down':
      case 'memcached_up':
        if (!memcachedUncertain.has(a.server)) checkMemcachedEntry(a, memcachedDown, where, when);
        break;
      default:
        break;
    }
  }
}

function randomActive(f: { perMinute: number } | undefined): boolean {
  return f !== undefined && f.perMinute > 0;
}

/** When random faults a `heal` could end may first be on (Infinity: never). */
function randomDisturbanceStart(f: RandomFaultProfile): number {
  const healable = [
    f.partition,
    f.partitionOneWay,
    f.latencySpike,
    f.kvUnavailable,
    f.objstoreUnavailable,
  ];
  return healable.some(randomActive) ? f.fromMs : Infinity;
}
