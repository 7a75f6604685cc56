import { describe, expect, it } from 'vitest';
import { buildWriteRequest } from '../distributor/index.js';
import type { Labels } from '../model/index.js';
import { toPushSeries } from './ingester_rpc.js';
import { pushSampleCount } from './tenant_dbs.js';

describe('toPushSeries with a Labels memo', () => {
  const req = buildWriteRequest({
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
  });

  it('gives the same Labels for the same label array, and equal ones without the memo', () => {
    const memo = new WeakMap<readonly string[], Labels>();
    const first = toPushSeries(req, undefined, memo);
    const again = toPushSeries(req, [1, 0], memo);
    expect(again[1]?.labels).toBe(first[0]?.labels);
    expect(again[0]?.labels).toBe(first[1]?.labels);
    expect(first[0]?.labels.toString()).toBe('{__name__="up", job="a"}');
    expect(again[0]).toMatchObject({ start: 1, end: 2 });
    expect(again[0] !== undefined && pushSampleCount(again[0])).toBe(1);
    const plain = toPushSeries(req);
    expect(plain[0]?.labels).not.toBe(first[0]?.labels);
    expect(plain[0]?.labels.equals(first[0]?.labels as Labels)).toBe(true);
  });

  it('keys by array identity: an equal but different array gets its own Labels', () => {
    const memo = new WeakMap<readonly string[], Labels>();
    const other = buildWriteRequest({
      series: [{ labels: [['__name__', 'down']], samples: [{ timestamp: 5, value: 6 }] }],
    });
    const a = toPushSeries(req, [1], memo)[0]?.labels;
    const b = toPushSeries(other, undefined, memo)[0]?.labels;
    expect(b).not.toBe(a);
    expect(b?.equals(a as Labels)).toBe(true);
  });

  it('memoizes the filtered form of labels with empty values', () => {
    const memo = new WeakMap<readonly string[], Labels>();
    const withEmpty = buildWriteRequest({
      series: [
        {
          labels: [
            ['__name__', 'm'],
            ['a', ''],
          ],
          samples: [{ timestamp: 1, value: 1 }],
        },
      ],
    });
    const one = toPushSeries(withEmpty, undefined, memo)[0]?.labels;
    expect(one?.toString()).toBe('{__name__="m"}');
    expect(toPushSeries(withEmpty, undefined, memo)[0]?.labels).toBe(one);
  });
});
