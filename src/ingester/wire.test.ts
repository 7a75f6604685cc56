import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { decodeSeriesSamples, encodeSeriesSamples, type SeriesSamples } from './wire.js';

/** The documented layout, built independently: u32 counts and lengths, UTF-8, f64, LE. */
function layout(series: readonly SeriesSamples[]): Uint8Array {
  const parts: number[] = [];
  const u32 = (v: number): void => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, true);
    parts.push(...b);
  };
  const f64 = (v: number): void => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v, true);
    parts.push(...b);
  };
  u32(series.length);
  for (const s of series) {
    u32(s.labels.length);
    s.labels.forEach((name, value) => {
      for (const str of [name, value]) {
        const bytes = new TextEncoder().encode(str);
        u32(bytes.length);
        parts.push(...bytes);
      }
    });
    u32(s.timestamps.length);
    s.timestamps.forEach(f64);
    s.values.forEach(f64);
  }
  return Uint8Array.from(parts);
}

describe('series wire encoding', () => {
  const series: SeriesSamples[] = [
    {
      labels: Labels.fromObject({ __name__: 'up', job: 'api', instance: 'h:9090' }),
      timestamps: Float64Array.from([1_767_225_600_000, 1_767_225_615_000]),
      values: Float64Array.from([1, NaN]),
    },
    {
      // Multi-byte UTF-8 (2, 3 and 4 bytes) where label values may hold it.
      labels: Labels.fromObject({ __name__: 'temp', city: 'Zürich', note: '温度 🌡' }),
      timestamps: Float64Array.from([5]),
      values: Float64Array.from([-0.5]),
    },
    {
      labels: Labels.fromObject({ a: '' }),
      timestamps: new Float64Array(0),
      values: new Float64Array(0),
    },
  ];

  it('writes exactly the documented layout, ASCII and UTF-8 alike', () => {
    expect(encodeSeriesSamples(series)).toEqual(layout(series));
    expect(encodeSeriesSamples([])).toEqual(layout([]));
  });

  it('round-trips labels, timestamps and values', () => {
    const back = decodeSeriesSamples(encodeSeriesSamples(series));
    expect(back.map((s) => s.labels.toString())).toEqual(series.map((s) => s.labels.toString()));
    expect(back.map((s) => [...s.timestamps])).toEqual(series.map((s) => [...s.timestamps]));
    expect(back.map((s) => [...s.values])).toEqual(series.map((s) => [...s.values]));
  });
});
