import { describe, expect, it } from 'vitest';
import { cpuProfileToPprof, heapProfileToPprof, type V8CpuProfile } from './pprof_convert.js';
import { PprofCodec, type PprofProfile } from './pprof_schema.js';

const frame = (functionName: string, lineNumber = 0, url = 'file:///app/x.js') => ({
  functionName,
  url,
  lineNumber,
  columnNumber: 0,
});

// (root) → main → work → leaf ; (root) → (idle) ; (root) → (garbage collector)
const cpu: V8CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', -1, ''), children: [2, 5, 6] },
    { id: 2, callFrame: frame('main', 9), children: [3] },
    { id: 3, callFrame: frame('work', 19), children: [4] },
    { id: 4, callFrame: frame('', 29) },
    { id: 5, callFrame: frame('(idle)', -1, '') },
    { id: 6, callFrame: frame('(garbage collector)', -1, '') },
  ],
  startTime: 1_000,
  endTime: 101_000,
  samples: [4, 4, 3, 5, 5, 5, 6],
  timeDeltas: [10, 20, 30, 1000, 1000, 1000, 5],
};

/** Each sample as "count/value stack" with function names leaf first, sorted. */
function render(p: PprofProfile): string[] {
  const fn = new Map(p.function.map((f) => [f.id, p.stringTable[f.name]]));
  const loc = new Map(p.location.map((l) => [l.id, fn.get(l.line[0]!.functionId)]));
  return p.sample
    .map((s) => `${s.value.join('/')} ${s.locationId.map((id) => loc.get(id)).join('<')}`)
    .sort();
}

describe('cpuProfileToPprof', () => {
  it('aggregates samples by leaf, stacks leaf first, and drops idle pseudo-frames in CPU mode', () => {
    const p = cpuProfileToPprof(cpu, {
      wall: false,
      intervalMicros: 1000,
      startEpochMs: 1_700_000_000_000,
    });
    expect(render(p)).toEqual(['1/30000 work<main', '2/30000 (anonymous)<work<main']);
    expect(p.durationNanos).toBe(100_000_000);
    expect(p.period).toBe(1_000_000);
    expect(p.timeNanos).toBe(1_700_000_000_000 * 1e6);
    const main = p.function.find((f) => p.stringTable[f.name] === 'main')!;
    expect(p.stringTable[main.filename]).toBe('/app/x.js');
    expect(main.startLine).toBe(10); // V8 lines are 0-based, pprof's 1-based
  });

  it('keeps idle and GC samples in wall mode', () => {
    const p = cpuProfileToPprof(cpu, { wall: true, intervalMicros: 1000, startEpochMs: 0 });
    expect(render(p)).toEqual([
      '1/30000 work<main',
      '1/5000 (garbage collector)',
      '2/30000 (anonymous)<work<main',
      '3/3000000 (idle)',
    ]);
    expect(p.sampleType.map((t) => p.stringTable[t.type])).toEqual(['samples', 'wall']);
  });

  it('encodes and decodes losslessly', () => {
    const codec = new PprofCodec();
    const p = cpuProfileToPprof(cpu, {
      wall: true,
      intervalMicros: 1000,
      startEpochMs: 1_700_000_000_000,
    });
    const back = codec.decode(codec.encode(p));
    expect(render(back)).toEqual(render(p));
    expect(back.stringTable).toEqual(p.stringTable);
    expect(back.location).toMatchObject(p.location); // decode adds proto defaults
  });
});

describe('heapProfileToPprof', () => {
  it('sums sampled bytes and counts samples per allocating stack', () => {
    const p = heapProfileToPprof(
      {
        head: {
          id: 1,
          callFrame: frame('(root)', -1, ''),
          selfSize: 0,
          children: [
            {
              id: 2,
              callFrame: frame('load', 4),
              selfSize: 0,
              children: [{ id: 3, callFrame: frame('decode', 7), selfSize: 300, children: [] }],
            },
          ],
        },
        samples: [
          { size: 100, nodeId: 3 },
          { size: 200, nodeId: 3 },
          { size: 50, nodeId: 2 },
        ],
      },
      { samplingIntervalBytes: 1024, nowEpochMs: 0 },
    );
    expect(render(p)).toEqual(['1/50 load', '2/300 decode<load']);
    expect(p.sampleType.map((t) => `${p.stringTable[t.type]}/${p.stringTable[t.unit]}`)).toEqual([
      'objects/count',
      'space/bytes',
    ]);
    expect(p.period).toBe(1024);
  });
});
