/**
 * Test support only (imported by `*.test.ts`, never by production code): value bits,
 * reading whole series back from a head, and a small seeded model of the ingestion rule.
 */
import { Labels, Matcher } from '../../../model/index.js';
import { ValueType } from '../../chunkenc/index.js';
import type { Head } from '../head.js';
import { fromBits, toBits } from '../../chunkenc/testing/index.js';

export { fromBits, toBits };

/** Prometheus's stale marker as a number (the payload is kept only by bit-careful code). */
export function staleNaN(): number {
  return fromBits(0x7ff00000n * 2n ** 32n + 2n);
}

export interface ReadSample {
  t: number;
  bits: bigint;
}

/** Every series in the head with its samples in [mint, maxt], keyed by label string. */
export async function readAll(
  head: Head,
  mint = Number.MIN_SAFE_INTEGER,
  maxt = Number.MAX_SAFE_INTEGER,
): Promise<Map<string, ReadSample[]>> {
  const out = new Map<string, ReadSample[]>();
  for (const s of await head.select([Matcher.regex('__name__', '.+')], mint, maxt)) {
    const samples: ReadSample[] = [];
    const it = s.iterator();
    while (it.next() !== ValueType.None) samples.push({ t: it.atT(), bits: toBits(it.atF()) });
    const err = it.err();
    if (err !== null) throw err;
    out.set(s.labels.toString(), samples);
  }
  return out;
}

export function seriesLabels(i: number): Labels {
  return Labels.fromStrings('__name__', 'm', 'i', String(i));
}
