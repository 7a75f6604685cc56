// The remote-write load generator: request shape, label cardinalities, scrape-like
// timestamps, and bodies that the distributor's own decoder reads back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_RECV_MSG_SIZE,
  decodeRemoteWriteBody,
  toPlainWriteRequest,
} from '../src/distributor/index.js';
import {
  LABELS_PER_SERIES,
  RemoteWriteLoad,
  SCRAPE_INTERVAL_MS,
  SERIES_PER_REQUEST,
  labelCardinalities,
  seriesLabels,
} from './remote_write_gen.js';
import { quantile } from './remote_write_load.js';

const START = 1_700_000_000_000 - (1_700_000_000_000 % SCRAPE_INTERVAL_MS);

function decode(body: Uint8Array): ReturnType<typeof toPlainWriteRequest> {
  return toPlainWriteRequest(
    decodeRemoteWriteBody(
      body,
      { contentType: 'application/x-protobuf', contentEncoding: 'snappy' },
      { maxRecvMsgSize: DEFAULT_MAX_RECV_MSG_SIZE },
    ),
  );
}

describe('remote-write load generator', () => {
  it('builds 1,000-series requests of 10 sorted labels and one sample each', () => {
    const load = new RemoteWriteLoad(2_500, START);
    const round = load.buildRound(0);
    expect(round.bodies).toHaveLength(3);
    expect(round.samplesPerBody).toEqual([SERIES_PER_REQUEST, SERIES_PER_REQUEST, 500]);
    const req = decode(round.bodies[0] as Uint8Array);
    expect(req.series).toHaveLength(SERIES_PER_REQUEST);
    for (const s of req.series) {
      expect(s.labels).toHaveLength(LABELS_PER_SERIES);
      const names = s.labels.map(([n]) => n);
      expect(names).toEqual([...names].sort());
      expect(names[0]).toBe('__name__');
      expect(s.samples).toHaveLength(1);
    }
    const last = decode(round.bodies[2] as Uint8Array);
    expect(last.series[0]?.labels).toEqual(seriesLabels(2_000));
  });

  it('gives every series a distinct label set with realistic cardinalities', () => {
    const n = 20_000;
    const keys = new Set<string>();
    for (let s = 0; s < n; s++) keys.add(JSON.stringify(seriesLabels(s)));
    expect(keys.size).toBe(n);
    const card = labelCardinalities(n);
    expect(card.get('__name__')).toBe(100);
    expect(card.get('instance')).toBe(n / 200);
    expect(card.get('pod')).toBe(n / 200);
    expect(card.get('cluster')).toBe(4);
    expect(card.get('env')).toBe(2);
    expect(card.get('job')).toBe(12);
  });

  it('advances each series by one scrape interval per round, counters never decreasing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3_000 }), fc.nat(20), (numSeries, round) => {
        const load = new RemoteWriteLoad(numSeries, START);
        const a = decode(load.buildRound(round).bodies[0] as Uint8Array);
        const b = decode(load.buildRound(round + 1).bodies[0] as Uint8Array);
        a.series.forEach((s, i) => {
          const sa = s.samples?.[0];
          const sb = b.series[i]?.samples?.[0];
          expect(sb?.timestamp).toBe((sa?.timestamp ?? 0) + SCRAPE_INTERVAL_MS);
          expect(sa?.timestamp).toBeGreaterThanOrEqual(START + round * SCRAPE_INTERVAL_MS);
          expect(sa?.timestamp).toBeLessThan(START + (round + 1) * SCRAPE_INTERVAL_MS);
          if (/_(total|sum|count)$/.test(s.labels[0]?.[1] ?? '')) {
            expect(sb?.value).toBeGreaterThan(sa?.value ?? Infinity);
          }
        });
      }),
      { numRuns: 15 },
    );
  });

  it('quantile takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.99)).toBeNaN();
  });
});
