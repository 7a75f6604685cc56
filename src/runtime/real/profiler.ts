import { Session } from 'node:inspector/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { AbortError } from '../clock.js';
import {
  cpuProfileToPprof,
  heapProfileToPprof,
  type V8CpuProfile,
  type V8HeapProfile,
} from './pprof_convert.js';
import { PprofCodec } from './pprof_schema.js';

const gzipAsync = promisify(gzip);

export interface NodeProfilerConfig {
  /** CPU sampling period; Go samples at 100 Hz, hence 10 ms. */
  cpuSamplingIntervalMicros?: number;
  /** Average bytes between heap samples; V8's default is 32 KiB, we sample sparser. */
  heapSamplingIntervalBytes?: number;
}

/**
 * Real pprof profiles of this Node process through the inspector protocol, gzipped like Go's
 * `/debug/pprof` responses so `go tool pprof` and Grafana/Pyroscope read them directly.
 *
 * Holds one inspector session, so one profiler per process (the app wiring makes it). Heap
 * sampling starts at the first heap request (or `startHeapSampling()`) and stays on: V8 only
 * reports allocations made while sampling is on, so the first profile is nearly empty.
 */
export class NodeProfiler {
  private readonly cpuIntervalMicros: number;
  private readonly heapIntervalBytes: number;
  private readonly codec = new PprofCodec();
  private session: Session | undefined;
  private cpuBusy = false;
  private heapSampling: Promise<void> | undefined;

  constructor(config: NodeProfilerConfig = {}) {
    this.cpuIntervalMicros = config.cpuSamplingIntervalMicros ?? 10_000;
    this.heapIntervalBytes = config.heapSamplingIntervalBytes ?? 512 * 1024;
    if (!(this.cpuIntervalMicros >= 1)) {
      throw new RangeError(
        `cpuSamplingIntervalMicros must be >= 1, got ${config.cpuSamplingIntervalMicros}`,
      );
    }
    if (!(this.heapIntervalBytes >= 1)) {
      throw new RangeError(
        `heapSamplingIntervalBytes must be >= 1, got ${config.heapSamplingIntervalBytes}`,
      );
    }
  }

  /**
   * Samples the CPU for `ms` milliseconds. With `wall`, idle time is kept (fgprof's on- and
   * off-CPU view); without, only samples running JavaScript count. One CPU profile at a time,
   * as in Go. Rejects with AbortError if `signal` aborts first (profiling stops at once).
   */
  async captureCpuProfile(
    ms: number,
    opts: { wall: boolean },
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    if (!(ms > 0)) throw new RangeError(`profile duration must be > 0 ms, got ${ms}`);
    if (signal?.aborted) throw new AbortError('cpu profile aborted before start');
    if (this.cpuBusy) throw new Error('cpu profiling already in use');
    this.cpuBusy = true;
    const session = this.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: this.cpuIntervalMicros });
      const startEpochMs = Date.now();
      await session.post('Profiler.start');
      let profile: V8CpuProfile;
      try {
        await waitFor(ms, signal);
      } finally {
        ({ profile } = (await session.post('Profiler.stop')) as { profile: V8CpuProfile });
      }
      await session.post('Profiler.disable');
      const pprof = cpuProfileToPprof(profile, {
        wall: opts.wall,
        intervalMicros: this.cpuIntervalMicros,
        startEpochMs,
      });
      return await gzipAsync(this.codec.encode(pprof));
    } finally {
      this.cpuBusy = false;
    }
  }

  /** The live (in-use) sampled heap since sampling started, as pprof `objects`/`space`. */
  async captureHeapProfile(): Promise<Uint8Array> {
    await this.startHeapSampling();
    const session = this.connect();
    const { profile } = (await session.post('HeapProfiler.getSamplingProfile')) as {
      profile: V8HeapProfile;
    };
    const pprof = heapProfileToPprof(profile, {
      samplingIntervalBytes: this.heapIntervalBytes,
      nowEpochMs: Date.now(),
    });
    return await gzipAsync(this.codec.encode(pprof));
  }

  /** Starts heap sampling now (idempotent), so the first heap profile already has history. */
  startHeapSampling(): Promise<void> {
    this.heapSampling ??= (async () => {
      const session = this.connect();
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: this.heapIntervalBytes,
      });
    })();
    return this.heapSampling;
  }

  /** Stops sampling and disconnects the inspector session. */
  close(): Promise<void> {
    this.session?.disconnect();
    this.session = undefined;
    this.heapSampling = undefined;
    return Promise.resolve();
  }

  private connect(): Session {
    if (this.session === undefined) {
      this.session = new Session();
      this.session.connect();
    }
    return this.session;
  }
}

function waitFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortError('cpu profile aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
