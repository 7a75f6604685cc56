import type { RunEvent } from '../workloads/index.js';
import { describeFaultAction, type FaultPlan } from './fault_plan.js';

/**
 * The resolved schedule as report events: node faults on their node's lane, a partition on
 * the lane of every node or service it cuts off (lasting until its heal), everything that
 * touches the whole cluster (heal, latency spikes, cache wipes, error bursts) on lane `-`.
 */
export function faultTimeline(plan: FaultPlan, epochMs: number, endMs: number): RunEvent[] {
  const out: RunEvent[] = [];
  /** Open partitions by id: the events to close when they heal. */
  const open = new Map<string, RunEvent[]>();
  const close = (events: RunEvent[] | undefined, at: number): void => {
    for (const e of events ?? []) e.until = at;
  };
  for (const f of plan.faults) {
    const at = epochMs + f.atMs;
    const a = f.action;
    const detail = describeFaultAction(a);
    switch (a.kind) {
      case 'partition':
      case 'partition_one_way': {
        const names = a.kind === 'partition' ? a.groups.flat() : [a.from, a.to];
        const events = names.map((node) => ({ at, node, kind: 'partition', detail, until: endMs }));
        close(open.get(a.id), at);
        open.set(a.id, events);
        out.push(...events);
        break;
      }
      case 'heal_partition':
        close(open.get(a.id), at);
        open.delete(a.id);
        out.push({ at, node: '-', kind: 'heal', detail });
        break;
      case 'heal':
        for (const events of open.values()) close(events, at);
        open.clear();
        out.push({ at, node: '-', kind: 'heal', detail });
        break;
      case 'crash':
      case 'power_loss':
      case 'restart':
      case 'stop':
      case 'start':
      case 'clock_skew':
        out.push({ at, node: a.node, kind: a.kind, detail });
        break;
      case 'service_down':
      case 'service_up':
        out.push({ at, node: a.service, kind: a.kind, detail });
        break;
      case 'crash_mid_block_upload':
        for (const node of a.nodes) out.push({ at, node, kind: a.kind, detail });
        break;
      case 'memcached_down':
      case 'memcached_up':
      case 'memcached_slow':
      case 'memcached_wrong_values':
        out.push({ at, node: a.server, kind: a.kind, detail });
        break;
      default:
        out.push({ at, node: '-', kind: a.kind, detail });
    }
  }
  return out;
}
