import { describe, expect, it } from 'vitest';
import {
  SeriesLabelsCache,
  buildWriteRequest,
  decodeWriteRequest,
  encodeWriteRequest,
  type WriteRequestData,
} from '../distributor/index.js';
import type { Labels } from '../model/index.js';
import { toPushSeries } from './ingester_rpc.js';
import { pushSampleCount } from './push_types.js';

describe('toPushSeries and the distributor label cache', () => {
  const body = encodeWriteRequest(
    buildWriteRequest({
      series: [
        {
          labels: [
            ['__name__', 'up'],
            ['job', 'a'],
          ],
          samples: [{ timestamp: 1, value: 2 }],
        },
        { labels: [['__name__', 'down']], samples: [{ timestamp: 3, value: 4 }] },
      ],
    }),
  );

  it('gives the same Labels for the same cached series, and equal ones without the cache', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 16 });
    const first = toPushSeries(decodeWriteRequest(body, cache));
    const again = toPushSeries(decodeWriteRequest(body, cache), [1, 0]);
    expect(again[1]?.labels).toBe(first[0]?.labels);
    expect(again[0]?.labels).toBe(first[1]?.labels);
    expect(first[0]?.labels.toString()).toBe('{__name__="up", job="a"}');
    expect(again[0]).toMatchObject({ start: 1, end: 2 });
    expect(again[0] !== undefined && pushSampleCount(again[0])).toBe(1);
    const plain = toPushSeries(decodeWriteRequest(body));
    expect(plain[0]?.labels).not.toBe(first[0]?.labels);
    expect(plain[0]?.labels.equals(first[0]?.labels as Labels)).toBe(true);
  });

  it('ignores a cache entry whose series got another label array (as HA processing does)', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 16 });
    const cached = toPushSeries(decodeWriteRequest(body, cache))[1]?.labels;
    const data = decodeWriteRequest(body, cache);
    const s = data.series[1];
    if (s === undefined) throw new Error('no series');
    s.labels = ['__name__', 'other'];
    const relabelled: WriteRequestData = data;
    const got = toPushSeries(relabelled, [1])[0]?.labels;
    expect(got?.toString()).toBe('{__name__="other"}');
    expect(got).not.toBe(cached);
    // The entry still gives the original series its Labels.
    expect(toPushSeries(decodeWriteRequest(body, cache), [1])[0]?.labels).toBe(cached);
  });

  it('gives each tenant its own Labels for a shared cache entry, the same on every push', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 16 });
    const push = (tenant: string) =>
      toPushSeries(decodeWriteRequest(body, cache), undefined, tenant).map((s) => s.labels);
    const [a0, a1] = push('team-a');
    const [b0, b1] = push('team-b');
    const [c0] = push('team-c');
    // Equal label sets, but separate objects: a Labels carries one head's series hint.
    expect(b0).not.toBe(a0);
    expect(c0).not.toBe(a0);
    expect(c0).not.toBe(b0);
    expect(b0?.equals(a0 as Labels)).toBe(true);
    const again = push('team-a');
    expect(again[0]).toBe(a0);
    expect(again[1]).toBe(a1);
    expect(push('team-b')[0]).toBe(b0);
    expect(push('team-b')[1]).toBe(b1);
    expect(push('team-c')[0]).toBe(c0);
  });

  it('memoizes the filtered form of labels with empty values', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 16 });
    const withEmpty = encodeWriteRequest(
      buildWriteRequest({
        series: [
          {
            labels: [
              ['__name__', 'm'],
              ['a', ''],
            ],
            samples: [{ timestamp: 1, value: 1 }],
          },
        ],
      }),
    );
    const one = toPushSeries(decodeWriteRequest(withEmpty, cache))[0]?.labels;
    expect(one?.toString()).toBe('{__name__="m"}');
    expect(toPushSeries(decodeWriteRequest(withEmpty, cache))[0]?.labels).toBe(one);
  });
});
