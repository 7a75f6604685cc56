import { PprofBuilder, type V8CallFrame } from './pprof_builder.js';
import type { PprofProfile } from './pprof_schema.js';

/** The parts of the inspector's `Profiler.Profile` the conversion reads. */
export interface V8CpuProfile {
  nodes: { id: number; callFrame: V8CallFrame; children?: number[] }[];
  /** Microseconds on a monotonic clock. */
  startTime: number;
  endTime: number;
  /** Node id of the leaf of each sample. */
  samples?: number[];
  /** Microseconds since the previous sample (the first: since startTime). */
  timeDeltas?: number[];
}

/** The parts of the inspector's `HeapProfiler.SamplingHeapProfile` the conversion reads. */
export interface V8HeapProfile {
  head: V8HeapNode;
  samples?: { size: number; nodeId: number }[];
}

export interface V8HeapNode {
  id: number;
  callFrame: V8CallFrame;
  selfSize: number;
  children: V8HeapNode[];
}

/** Pseudo-frames V8 uses for time not spent in JavaScript the program ran. */
const IDLE_FRAMES: ReadonlySet<string> = new Set(['(idle)', '(program)', '(garbage collector)']);

/**
 * A V8 CPU profile as pprof. CPU mode (`/debug/pprof/profile`) keeps only samples that were
 * running JavaScript; wall mode (`/debug/fgprof`, on- and off-CPU) keeps every sample,
 * idle included. Each sample's value is one count and the time since the previous sample.
 */
export function cpuProfileToPprof(
  profile: V8CpuProfile,
  opts: { wall: boolean; intervalMicros: number; startEpochMs: number },
): PprofProfile {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Aggregate by leaf node first: a profile has far fewer nodes than samples.
  const perNode = new Map<number, { count: number; micros: number }>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const nodeId = samples[i]!;
    const node = byId.get(nodeId);
    if (node === undefined) continue;
    if (!opts.wall && IDLE_FRAMES.has(node.callFrame.functionName)) continue;
    const acc = perNode.get(nodeId) ?? { count: 0, micros: 0 };
    acc.count += 1;
    acc.micros += Math.max(0, deltas[i] ?? opts.intervalMicros);
    perNode.set(nodeId, acc);
  }

  const b = new PprofBuilder();
  const kind = opts.wall ? 'wall' : 'cpu';
  const sampleType = [b.valueType('samples', 'count'), b.valueType(kind, 'nanoseconds')];
  for (const [nodeId, acc] of perNode) {
    const stack: number[] = [];
    for (let id: number | undefined = nodeId; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node === undefined || node.callFrame.functionName === '(root)') break;
      stack.push(b.location(id, node.callFrame));
    }
    if (stack.length > 0) b.addSample(stack, [acc.count, Math.round(acc.micros * 1000)]);
  }
  return b.build({
    sampleType,
    periodType: b.valueType(kind, 'nanoseconds'),
    period: Math.round(opts.intervalMicros * 1000),
    timeNanos: Math.round(opts.startEpochMs * 1e6),
    durationNanos: Math.max(0, Math.round((profile.endTime - profile.startTime) * 1000)),
    defaultSampleType: kind,
  });
}

/**
 * A V8 sampling heap profile as pprof with Go's in-use view: `objects/count` and
 * `space/bytes` of allocations still live. V8 reports each sampled allocation with its size
 * already scaled up for the sampling rate; the object count is the number of sampled
 * allocations (V8's inspector protocol does not expose scaled counts).
 */
export function heapProfileToPprof(
  profile: V8HeapProfile,
  opts: { samplingIntervalBytes: number; nowEpochMs: number },
): PprofProfile {
  const byId = new Map<number, V8HeapNode>();
  const parent = new Map<number, number>();
  const pending: V8HeapNode[] = [profile.head];
  for (let n = pending.pop(); n !== undefined; n = pending.pop()) {
    byId.set(n.id, n);
    for (const c of n.children) {
      parent.set(c.id, n.id);
      pending.push(c);
    }
  }

  const perNode = new Map<number, { objects: number; bytes: number }>();
  if (profile.samples !== undefined) {
    for (const s of profile.samples) {
      const acc = perNode.get(s.nodeId) ?? { objects: 0, bytes: 0 };
      acc.objects += 1;
      acc.bytes += s.size;
      perNode.set(s.nodeId, acc);
    }
  } else {
    // Older V8s report only per-node totals.
    for (const n of byId.values())
      if (n.selfSize > 0) perNode.set(n.id, { objects: 1, bytes: n.selfSize });
  }

  const b = new PprofBuilder();
  const sampleType = [b.valueType('objects', 'count'), b.valueType('space', 'bytes')];
  for (const [nodeId, acc] of perNode) {
    const stack: number[] = [];
    for (let id: number | undefined = nodeId; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node === undefined || id === profile.head.id) break;
      stack.push(b.location(id, node.callFrame));
    }
    if (stack.length > 0) b.addSample(stack, [acc.objects, acc.bytes]);
  }
  return b.build({
    sampleType,
    periodType: b.valueType('space', 'bytes'),
    period: opts.samplingIntervalBytes,
    timeNanos: Math.round(opts.nowEpochMs * 1e6),
    durationNanos: 0,
    defaultSampleType: 'space',
  });
}
