import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FNV32_OFFSET,
  fnv32aAdd,
  shardByAllLabels,
  shardByMetricName,
  tokenForSeries,
} from './shard.js';

/** Reference FNV-1a over bytes, straight from the definition. */
function fnv1a(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Number((BigInt(h ^ b) * 16777619n) & 0xffffffffn);
  return h >>> 0;
}

describe('FNV-1a sharding (Cortex HashAdd32)', () => {
  it('matches the published FNV-1a 32 vectors', () => {
    expect(fnv32aAdd(FNV32_OFFSET, '')).toBe(0x811c9dc5);
    expect(fnv32aAdd(FNV32_OFFSET, 'a')).toBe(0xe40c292c);
    expect(fnv32aAdd(FNV32_OFFSET, 'foobar')).toBe(0xbf9cf968);
  });

  it('hashes tenant then metric name with no separator (Cortex shardByMetricName)', () => {
    // Vectors computed with an independent byte-wise FNV-1a over the concatenated UTF-8.
    expect(shardByMetricName('foo', 'bar')).toBe(0xbf9cf968);
    expect(shardByMetricName('user-1', 'up')).toBe(0xcee99959);
    expect(shardByMetricName('tenant', 'metric_name')).toBe(0xf9e862a1);
    expect(shardByMetricName('t', 'µ名😀')).toBe(0xbcf9ffe7);
  });

  it('hashes tenant then every name and value in order (Cortex shardByAllLabels)', () => {
    const labels = ['__name__', 'http_requests_total', 'job', 'api'];
    expect(shardByAllLabels('t1', labels)).toBe(0x5de46a14);
    expect(tokenForSeries('t1', labels, true)).toBe(0x5de46a14);
    // By metric name, other labels do not matter.
    expect(tokenForSeries('t1', labels, false)).toBe(
      shardByMetricName('t1', 'http_requests_total'),
    );
    expect(tokenForSeries('t1', ['__name__', 'http_requests_total'], false)).toBe(
      tokenForSeries('t1', labels, false),
    );
    // Different tenants, different tokens.
    expect(shardByMetricName('t1', 'up')).not.toBe(shardByMetricName('t2', 'up'));
  });

  it('a series without a metric name hashes an empty name', () => {
    expect(tokenForSeries('t', ['job', 'x'], false)).toBe(shardByMetricName('t', ''));
  });

  it('equals byte-wise FNV-1a of the UTF-8 encoding for any strings', () => {
    const enc = new TextEncoder();
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'binary' }),
            // Lone and reversed surrogates, which only JS strings can hold.
            fc.constantFrom('\ud800', '\udc00x', 'a\ud83d', '\ude00\ud83d'),
          ),
          { maxLength: 6 },
        ),
        (parts) => {
          let h = FNV32_OFFSET;
          for (const p of parts) h = fnv32aAdd(h, p);
          // Each part is encoded on its own (a pair split across parts is two lone halves).
          const bytes = parts.flatMap((p) => [...enc.encode(p)]);
          expect(h).toBe(fnv1a(Uint8Array.from(bytes)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
