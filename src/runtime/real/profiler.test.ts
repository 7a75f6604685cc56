import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAbortError } from '../clock.js';
import { PprofCodec, type PprofProfile } from './pprof_schema.js';
import { NodeProfiler } from './profiler.js';

const run = promisify(execFile);
const codec = new PprofCodec();

function decode(gz: Uint8Array): PprofProfile {
  expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]); // gzip, as Go serves profiles
  return codec.decode(gunzipSync(gz));
}

const BUSY_FUNCTIONS = ['strataBusyLoopForProfile', 'strataBurnCpuUntil'];
const str = (p: PprofProfile, i: number): string => p.stringTable[i] ?? `<bad string index ${i}>`;
const sampleTypes = (p: PprofProfile): string[] =>
  p.sampleType.map((t) => `${str(p, t.type)}/${str(p, t.unit)}`);
const functionNames = (p: PprofProfile): string[] => p.function.map((f) => str(p, f.name));

/** Burns CPU in a function with a name we can look for in the profile. */
function strataBusyLoopForProfile(ms: number): number {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  return x;
}

/**
 * Keeps the CPU busy in short bursts until `done` settles, yielding so timers can fire. V8
 * may inline the busy loop into this function, so the tests accept either name.
 */
async function strataBurnCpuUntil(done: Promise<unknown>): Promise<void> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  while (!finished) {
    strataBusyLoopForProfile(10);
    await new Promise((r) => setImmediate(r));
  }
}

/** Allocations retained by the test, made in a function with a recognisable name. */
const retained: unknown[] = [];
function strataAllocateForHeapProfile(): void {
  for (let i = 0; i < 20_000; i++) retained.push({ index: i, payload: `value-${i}`.repeat(8) });
}

// Go's own pprof reads every profile: the Go toolchain is part of this project's machines
// (it also builds MinIO and the GCS emulator), so a missing `go` fails these tests loudly.
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-pprof-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `go tool pprof -raw` output for a profile (the first run may build the pprof tool). */
async function goPprofRaw(name: string, profile: Uint8Array): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, profile);
  const { stdout } = await run('go', ['tool', 'pprof', '-raw', file], {
    env: { ...process.env, PPROF_TMPDIR: dir },
    maxBuffer: 64 << 20,
  });
  return stdout;
}

describe('NodeProfiler CPU profiles', () => {
  it('profiles JavaScript on the CPU with cpu/nanoseconds samples and no idle frames', async () => {
    const profiler = new NodeProfiler({ cpuSamplingIntervalMicros: 1000 });
    try {
      const capture = profiler.captureCpuProfile(300, { wall: false });
      await strataBurnCpuUntil(capture);
      const p = decode(await capture);
      expect(sampleTypes(p)).toEqual(['samples/count', 'cpu/nanoseconds']);
      expect(`${str(p, p.periodType.type)}/${str(p, p.periodType.unit)}`).toBe('cpu/nanoseconds');
      expect(p.period).toBe(1_000_000);
      expect(str(p, p.defaultSampleType)).toBe('cpu');
      expect(p.durationNanos).toBeGreaterThanOrEqual(250_000_000);
      expect(Math.abs(p.timeNanos / 1e6 - Date.now())).toBeLessThan(60_000);
      const names = functionNames(p);
      for (const idle of ['(idle)', '(program)', '(garbage collector)'])
        expect(names).not.toContain(idle);
      const busy = p.function.filter((f) => BUSY_FUNCTIONS.includes(str(p, f.name)));
      expect(busy.length).toBeGreaterThan(0);
      for (const f of busy) {
        expect(str(p, f.filename)).toMatch(/profiler\.test\.ts$/);
        expect(f.startLine).toBeGreaterThan(0);
      }
      const busyIds = new Set(busy.map((f) => f.id));
      // Every sample's stack resolves to known locations, leaf first, with positive values.
      const locationIds = new Set(p.location.map((l) => l.id));
      for (const s of p.sample) {
        expect(s.locationId.every((id) => locationIds.has(id))).toBe(true);
        expect(s.value[0]).toBeGreaterThan(0);
      }
      const busySamples = p.sample.filter((s) => {
        const leaf = p.location.find((l) => l.id === s.locationId[0]);
        return busyIds.has(leaf?.line[0]?.functionId ?? -1);
      });
      expect(busySamples.reduce((n, s) => n + (s.value[0] ?? 0), 0)).toBeGreaterThan(5); // ~300 expected; loaded CI machines deliver fewer
    } finally {
      await profiler.close();
    }
  });

  it('keeps idle samples in wall mode (fgprof)', async () => {
    const profiler = new NodeProfiler({ cpuSamplingIntervalMicros: 1000 });
    try {
      const p = decode(await profiler.captureCpuProfile(200, { wall: true })); // mostly waiting
      expect(sampleTypes(p)).toEqual(['samples/count', 'wall/nanoseconds']);
      expect(str(p, p.defaultSampleType)).toBe('wall');
      expect(functionNames(p)).toContain('(idle)');
    } finally {
      await profiler.close();
    }
  });

  it('allows one CPU profile at a time and stops on abort', async () => {
    const profiler = new NodeProfiler();
    try {
      const ac = new AbortController();
      const first = profiler.captureCpuProfile(60_000, { wall: false }, ac.signal);
      await expect(profiler.captureCpuProfile(10, { wall: false })).rejects.toThrow(
        /already in use/,
      );
      ac.abort();
      const err: unknown = await first.catch((e: unknown) => e);
      expect(isAbortError(err)).toBe(true);
      // The profiler is free again.
      decode(await profiler.captureCpuProfile(20, { wall: false }));
    } finally {
      await profiler.close();
    }
  });

  it('rejects a non-positive duration naming it', async () => {
    await expect(new NodeProfiler().captureCpuProfile(0, { wall: false })).rejects.toThrow(/got 0/);
  });

  it('is read by go tool pprof, which shows the busy function', async () => {
    const profiler = new NodeProfiler({ cpuSamplingIntervalMicros: 1000 });
    try {
      const capture = profiler.captureCpuProfile(300, { wall: false });
      await strataBurnCpuUntil(capture);
      const raw = await goPprofRaw('cpu.pb.gz', await capture);
      expect(raw).toContain('PeriodType: cpu nanoseconds');
      expect(raw).toMatch(/samples\/count cpu\/nanoseconds/);
      expect(raw).toMatch(/strataBusyLoopForProfile|strataBurnCpuUntil/);
      expect(raw).toContain('profiler.test.ts');
    } finally {
      await profiler.close();
    }
  }, 240_000);
});

describe('NodeProfiler heap profiles', () => {
  it('reports live sampled allocations as objects/count and space/bytes, readable by go tool pprof', async () => {
    const profiler = new NodeProfiler({ heapSamplingIntervalBytes: 16 * 1024 });
    try {
      await profiler.startHeapSampling();
      strataAllocateForHeapProfile();
      const gz = await profiler.captureHeapProfile();
      const p = decode(gz);
      expect(sampleTypes(p)).toEqual(['objects/count', 'space/bytes']);
      expect(`${str(p, p.periodType.type)}/${str(p, p.periodType.unit)}`).toBe('space/bytes');
      expect(p.period).toBe(16 * 1024);
      expect(str(p, p.defaultSampleType)).toBe('space');
      const alloc = p.function.find((f) => str(p, f.name) === 'strataAllocateForHeapProfile');
      expect(alloc).toBeDefined();
      const bytes = p.sample
        .filter((s) =>
          s.locationId.some(
            (id) => p.location.find((l) => l.id === id)?.line[0]?.functionId === alloc!.id,
          ),
        )
        .reduce((n, s) => n + (s.value[1] ?? 0), 0);
      expect(bytes).toBeGreaterThan(100 * 1024);
      const raw = await goPprofRaw('heap.pb.gz', gz);
      expect(raw).toContain('PeriodType: space bytes');
      expect(raw).toContain('strataAllocateForHeapProfile');
    } finally {
      await profiler.close();
      retained.length = 0;
    }
  }, 240_000);
});
