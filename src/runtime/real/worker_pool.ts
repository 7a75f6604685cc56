// The real ComputePool: jobs run on worker threads, one job per worker at a time, so a
// query's evaluation never blocks the main event loop (pushes, heartbeats, other requests).
// A worker imports the job's module once and calls its `runJob`; the job's calls back (its
// storage reads) travel as messages and are answered by the starting side's `onCall`.
// Aborting a job terminates its worker (a busy worker cannot read messages), and a fresh
// one takes its place on demand.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AbortError } from '../clock.js';
import type { ComputePool, JobSpec } from '../compute.js';

/**
 * The worker's script (evaluated, so it needs no file of its own and works whether the
 * product runs from dist/ or its sources are loaded by a test runner).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.nice !== 0 && process.platform === 'linux') {
  // Linux keeps a nice value per thread, and 0 names the calling thread: only this one.
  // Relative to the process's own, so a server started under nice stays below it.
  const os = require('node:os');
  try {
    os.setPriority(0, Math.min(19, os.getPriority(0) + workerData.nice));
  } catch {}
}
const modules = new Map();
const pending = new Map();
let nextCall = 0;
const ctx = {
  scratch: new Map(),
  now: () => Date.now(),
  call: (payload, transfer) =>
    new Promise((resolve, reject) => {
      const id = nextCall++;
      pending.set(id, { resolve, reject });
      parentPort.postMessage({ t: 'call', id, payload }, transfer ?? []);
    }),
};
parentPort.on('message', async (msg) => {
  if (msg.t === 'reply') {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (p === undefined) return;
    if (msg.error !== undefined) p.reject(new Error(msg.error));
    else p.resolve(msg.value);
    return;
  }
  try {
    let mod = modules.get(msg.module);
    if (mod === undefined) {
      mod = await import(msg.module);
      modules.set(msg.module, mod);
    }
    const reply = await mod.runJob(msg.payload, ctx);
    parentPort.postMessage({ t: 'done', value: reply.value }, reply.transfer ?? []);
  } catch (err) {
    parentPort.postMessage({ t: 'fail', error: err instanceof Error ? err.message : String(err) });
  }
});
`;

/**
 * A worker's young generation as large as the server's (`--max-semi-space-size=64`, see
 * src/cli/node_flags.ts): evaluation allocates as push decoding does, and small scavenges
 * then cost a fifth of the time.
 */
const WORKER_OPTIONS = { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 192 } };

/**
 * How much nicer than the process evaluation threads run (Linux, where a nice value is per
 * thread; elsewhere it is per process and left alone): when cores are short, the kernel
 * gives the event loop's thread (pushes, ring heartbeats) the CPU before a heavy query's
 * evaluation. A worker on an otherwise idle core runs as fast either way.
 */
export const DEFAULT_WORKER_NICE = 19;

interface Slot {
  readonly worker: Worker;
  busy: boolean;
}

interface Waiting {
  readonly spec: JobSpec;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
}

/** The default number of workers: the cores but one (left to the event loop), 1 to 8. */
export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(8, availableParallelism() - 1));
}

export class WorkerComputePool implements ComputePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Waiting[] = [];
  private closed = false;

  constructor(
    private readonly size = defaultWorkerCount(),
    private readonly nice = DEFAULT_WORKER_NICE,
  ) {}

  run(spec: JobSpec): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('compute pool is closed'));
    if (spec.signal?.aborted === true) return Promise.reject(abortReason(spec.signal));
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { spec, resolve, reject };
      this.queue.push(waiting);
      // A job canceled while it waits for a worker leaves the queue at once.
      spec.signal?.addEventListener(
        'abort',
        () => {
          const i = this.queue.indexOf(waiting);
          if (i < 0) return;
          this.queue.splice(i, 1);
          reject(abortReason(spec.signal as AbortSignal));
        },
        { once: true },
      );
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.queue.splice(0)) w.reject(new Error('compute pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.busy);
      if (slot === undefined && this.slots.length < this.size) {
        slot = {
          worker: new Worker(WORKER_SOURCE, { ...WORKER_OPTIONS, workerData: { nice: this.nice } }),
          busy: false,
        };
        slot.worker.unref();
        this.slots.push(slot);
      }
      if (slot === undefined) return;
      const job = this.queue.shift() as Waiting;
      if (job.spec.signal?.aborted === true) {
        job.reject(abortReason(job.spec.signal));
        continue;
      }
      this.start(slot, job);
    }
  }

  private start(slot: Slot, job: Waiting): void {
    slot.busy = true;
    const { worker } = slot;
    const { spec } = job;
    let settled = false;
    const finish = (keep: boolean, settle: () => void): void => {
      if (settled) return;
      settled = true;
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      spec.signal?.removeEventListener('abort', onAbort);
      if (keep) slot.busy = false;
      else {
        this.slots.splice(this.slots.indexOf(slot), 1);
        void worker.terminate();
      }
      settle();
      if (!this.closed) this.dispatch();
    };
    const onMessage = (msg: {
      t: string;
      id?: number;
      payload?: unknown;
      value?: unknown;
      error?: string;
    }): void => {
      if (msg.t === 'done') finish(true, () => job.resolve(msg.value));
      else if (msg.t === 'fail') finish(true, () => job.reject(new Error(msg.error)));
      else if (msg.t === 'call') {
        spec.onCall(msg.payload).then(
          (reply) => {
            if (!settled)
              worker.postMessage({ t: 'reply', id: msg.id, value: reply.value }, [
                ...(reply.transfer ?? []),
              ]);
          },
          (err: unknown) => {
            if (!settled)
              worker.postMessage({
                t: 'reply',
                id: msg.id,
                error: err instanceof Error ? err.message : String(err),
              });
          },
        );
      }
    };
    const onError = (err: Error): void => finish(false, () => job.reject(err));
    const onExit = (code: number): void =>
      finish(false, () => job.reject(new Error(`compute worker exited with code ${code}`)));
    const onAbort = (): void =>
      finish(false, () => job.reject(abortReason(spec.signal as AbortSignal)));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ t: 'job', module: spec.module, payload: spec.payload }, [
      ...(spec.transfer ?? []),
    ]);
  }
}

/** Why `signal` aborted, as an Error (the reason it was given, or an AbortError). */
function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new AbortError(typeof r === 'string' ? r : 'operation aborted');
}
