// Helpers for the engine's tests: the in-memory storage (which keeps stale markers
// bit-exactly) loaded the way the conformance scripts' `load` does, with a switch to make
// selects fail, the stale marker, and flattening results for assertions.
import { Labels, type Matcher } from '../../model/index.js';
import { MemoryStorage } from '../memory_storage.js';
import type { Querier, StorageSeries } from '../storage.js';
import type { QueryValue } from '../value.js';

/** MemoryStorage taking `'stale'` for a stale marker, whose selects can be made to fail. */
export class TestStorage extends MemoryStorage {
  /** Set to make every select fail (storage error tests). */
  failSelect: Error | undefined;

  override add(labels: Labels, t: number, v: number | 'stale'): void {
    super.add(labels, t, v === 'stale' ? staleNaN() : v);
  }

  override async querier(mint: number, maxt: number): Promise<Querier> {
    const q = await super.querier(mint, maxt);
    const failSelect = this.failSelect;
    if (failSelect === undefined) return q;
    return {
      select: (_matchers: readonly Matcher[]): Promise<StorageSeries[]> =>
        Promise.reject(failSelect),
      labelNames: (m) => q.labelNames(m),
      labelValues: (n, m) => q.labelValues(n, m),
      close: () => q.close(),
    };
  }
}

/** Prometheus's stale marker, 0x7ff0000000000002. */
export function staleNaN(): number {
  const f = new Float64Array(1);
  const u = new DataView(f.buffer);
  u.setBigUint64(0, 0x7ff0000000000002n, true);
  return f[0] as number;
}

/** A value of a `load` line: a number, undefined for a gap, or 'stale'. */
export type LoadValue = number | undefined | 'stale';

/** Adds `values` at 0, interval, 2·interval, … for the series `labels`. */
export function load(
  st: TestStorage,
  intervalMs: number,
  labels: Record<string, string>,
  values: readonly LoadValue[],
): void {
  const l = Labels.fromObject(labels);
  values.forEach((v, i) => {
    if (v === undefined) return;
    st.add(l, i * intervalMs, v);
  });
}

/** `start+step×n` expansion of the scripts (`0+10x5` → 0 10 20 30 40 50). */
export function series(start: number, step: number, times: number): number[] {
  const out: number[] = [];
  for (let i = 0; i <= times; i++) out.push(start + step * i);
  return out;
}

/** Instant vector as `labels → value`, or a matrix as `labels → [t, v][]`, for toEqual. */
export function flatten(v: QueryValue): Record<string, unknown> | number | string {
  switch (v.type) {
    case 'vector': {
      const out: Record<string, number> = {};
      for (const s of v.vector) out[s.metric.toString()] = s.f;
      return out;
    }
    case 'matrix': {
      const out: Record<string, [number, number][]> = {};
      for (const s of v.matrix) out[s.metric.toString()] = s.floats.map((p) => [p.t, p.f]);
      return out;
    }
    case 'scalar':
      return v.scalar.v;
    case 'string':
      return v.string.v;
  }
}
