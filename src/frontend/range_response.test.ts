// The range codec reads the querier's bytes and writes them back identically, and merging /
// cutting answers keeps each timestamp once, in order, with series sorted by labels.
import { describe, expect, it } from 'vitest';
import { encodeQueryData, successBody } from '../api/index.js';
import { Labels } from '../model/index.js';
import { extractRange, mergeRangeResponses } from './merge.js';
import {
  decodeRangeResponse,
  EMPTY_HEADERS,
  encodeRangeResponse,
  RangeResponseDecodeError,
  type RangeResponse,
  type RangeSeries,
} from './range_response.js';

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);

function resp(series: RangeSeries[], warnings: string[] = [], infos: string[] = []): RangeResponse {
  return { series, warnings, infos, headers: EMPTY_HEADERS };
}

const pts = (...ts: number[]) => ts.map((t) => ({ t, f: t / 10 }));

describe('range response codec', () => {
  it('round-trips the querier JSON byte for byte, special values and escapes included', () => {
    const matrix = [
      {
        metric: L('__name__', 'up', 'job', 'a<b>&"c"', '0', 'digit-name'),
        floats: [
          { t: 1_700_000_000_100, f: 1 },
          { t: 1_700_000_015_000, f: NaN },
          { t: 1_700_000_030_001, f: Infinity },
          { t: 1_700_000_045_000, f: -Infinity },
          { t: 1_700_000_060_000, f: 1e-7 },
          { t: 1_700_000_075_000, f: 0.1 + 0.2 },
          { t: 1_700_000_090_000, f: 1e21 },
          { t: 1_700_000_105_000, f: -0 },
        ],
      },
      { metric: L('instance', 'x'), floats: [{ t: -1_500, f: 42 }] },
    ];
    const body = successBody(
      encodeQueryData({ type: 'matrix', matrix }, undefined),
      ['w <1>'],
      ['i & 2'],
    );
    const decoded = decodeRangeResponse(body);
    expect(decoded.series.map((s) => s.metric.toString())).toEqual(
      matrix.map((s) => s.metric.toString()),
    );
    expect(decoded.warnings).toEqual(['w <1>']);
    expect(decoded.infos).toEqual(['i & 2']);
    expect(encodeRangeResponse(decoded)).toBe(body);
  });

  it('keeps the querier stats object', () => {
    const body =
      '{"status":"success","data":{"resultType":"matrix","result":[],"stats":{"timings":{"evalTotalTime":0.5,"resultSortTime":0},"samples":{"totalQueryableSamples":7,"peakSamples":3}}}}';
    expect(encodeRangeResponse(decodeRangeResponse(body))).toBe(body);
  });

  it('rejects bodies that are no successful matrix answer', () => {
    for (const body of [
      '',
      '{"status":"error","errorType":"bad_data","error":"x"}',
      '{"status":"success","data":{"resultType":"vector","result":[]}}',
      '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":1},"values":[]}]}}',
      '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}}',
      '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["1","2"]]}]}}',
    ]) {
      expect(() => decodeRangeResponse(body), body).toThrow(RangeResponseDecodeError);
    }
  });
});

describe('mergeRangeResponses', () => {
  it('matches series by labels, drops repeated boundary samples and sorts series', () => {
    const a = resp([{ metric: L('j', 'b'), floats: pts(0, 10, 20) }], ['w2']);
    const b = resp(
      [
        { metric: L('j', 'b'), floats: pts(20, 30) },
        { metric: L('j', 'a'), floats: pts(30) },
      ],
      ['w1', 'w2'],
      ['i'],
    );
    // Given out of order: the later answer first.
    const merged = mergeRangeResponses([b, a]);
    expect(merged.series).toEqual([
      { metric: L('j', 'a'), floats: pts(30) },
      { metric: L('j', 'b'), floats: pts(0, 10, 20, 30) },
    ]);
    expect(merged.warnings).toEqual(['w1', 'w2']);
    expect(merged.infos).toEqual(['i']);
  });

  it('merges answers that overlap by more than one sample', () => {
    const a = resp([{ metric: L('j', 'a'), floats: pts(0, 10, 20, 30) }]);
    const b = resp([{ metric: L('j', 'a'), floats: pts(10, 20, 30, 40, 50) }]);
    const c = resp([{ metric: L('j', 'a'), floats: pts(5, 45) }]);
    expect(mergeRangeResponses([a, b, c]).series[0]?.floats).toEqual(
      pts(0, 5, 10, 20, 30, 40, 45, 50),
    );
  });

  it('returns a single answer unchanged, headers included', () => {
    const only = { ...resp([]), headers: new Map([['cache-control', ['no-store']]]) };
    expect(mergeRangeResponses([only])).toBe(only);
  });
});

describe('extractRange', () => {
  it('keeps samples in [start, end] and drops emptied series', () => {
    const r = resp(
      [
        { metric: L('j', 'a'), floats: pts(0, 10, 20, 30) },
        { metric: L('j', 'b'), floats: pts(40) },
      ],
      ['w'],
    );
    const cut = extractRange(r, 10, 30);
    expect(cut.series).toEqual([{ metric: L('j', 'a'), floats: pts(10, 20, 30) }]);
    expect(cut.warnings).toEqual(['w']);
  });
});
