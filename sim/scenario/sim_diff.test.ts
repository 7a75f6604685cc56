import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../kernel/index.js';
import { diffTraceLogs, formatTraceDiff } from './sim_diff.js';
import { TraceLogCollector, TraceLogError, parseTraceLog, traceEventJson } from './trace_log.js';

function events(n: number, node = 'a'): TraceEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    time: 1_000 + i * 10,
    node,
    incarnation: 1,
    kind: 'timer',
    detail: `tick ${i + 1}`,
  }));
}

function jsonl(es: readonly TraceEvent[]): string {
  return es.map((e) => `${traceEventJson(e)}\n`).join('');
}

describe('trace log', () => {
  it('round-trips through JSON Lines, chunked by the collector', () => {
    const es = events(10_000);
    const c = new TraceLogCollector();
    for (const e of es) c.record(e);
    expect(c.events).toBe(10_000);
    const chunks = c.textChunks();
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe(jsonl(es));
    expect(parseTraceLog(chunks.join(''))).toEqual(es);
  });

  it('names the line number of a line that is not a trace event', () => {
    const lines = jsonl(events(4)).split('\n');
    lines[2] = '{"seq":3,"time":';
    expect(() => parseTraceLog(lines.join('\n'))).toThrow(/^line 3: not valid JSON/);
    lines[2] = '{"seq":3,"time":1,"node":"a","incarnation":1,"kind":7,"detail":""}';
    let caught: unknown;
    try {
      parseTraceLog(lines.join('\n'));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TraceLogError);
    expect((caught as TraceLogError).line).toBe(3);
    expect((caught as TraceLogError).message).toBe('line 3: field "kind" must be a string');
  });
});

describe('diffTraceLogs', () => {
  it('reports identical logs with their event count', () => {
    const d = diffTraceLogs(events(7), events(7));
    expect(d).toEqual({ identical: true, events: 7 });
    expect(formatTraceDiff(d, 'a.jsonl', 'b.jsonl')).toEqual(['identical: 7 events']);
  });

  it('finds a divergence in the middle, with the shared context before it', () => {
    const a = events(20);
    const b = events(20);
    b[11] = { ...b[11]!, node: 'b', detail: 'other' };
    b[15] = { ...b[15]!, kind: 'later' };
    const d = diffTraceLogs(a, b, 3);
    expect(d.identical).toBe(false);
    if (d.identical) return;
    expect(d.line).toBe(12);
    expect(d.context.map((e) => e.seq)).toEqual([9, 10, 11]);
    expect(d.a).toEqual(a[11]);
    expect(d.b).toEqual(b[11]);
    const text = formatTraceDiff(d, 'a.jsonl', 'b.jsonl');
    expect(text[0]).toBe('traces diverge at line 12 (a.jsonl: 20 events, b.jsonl: 20 events)');
    expect(text).toContain('    #11 t=1100 a#1 timer tick 11');
    expect(text.slice(-2)).toEqual([
      '  a.jsonl | #12 t=1110 a#1 timer tick 12',
      '  b.jsonl | #12 t=1110 b#1 timer other',
    ]);
  });

  it('a difference in any hashed field counts (here the time only)', () => {
    const b = events(3);
    b[0] = { ...b[0]!, time: b[0]!.time + 1 };
    const d = diffTraceLogs(events(3), b);
    expect(d.identical === false && d.line).toBe(1);
    if (!d.identical) expect(d.context).toEqual([]);
  });

  it('when one log is a prefix of the other, the difference is where the shorter one ends', () => {
    const d = diffTraceLogs(events(10), events(6));
    expect(d.identical).toBe(false);
    if (d.identical) return;
    expect(d.line).toBe(7);
    expect(d.a).toEqual(events(10)[6]);
    expect(d.b).toBeUndefined();
    expect(d.context).toHaveLength(5);
    const text = formatTraceDiff(d, 'long', 'short');
    expect(text.at(-1)).toBe('  short | (log ends after 6 events)');
    expect(text[0]).toBe('traces diverge at line 7 (long: 10 events, short: 6 events)');
  });
});
