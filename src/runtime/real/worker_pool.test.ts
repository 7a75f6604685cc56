import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobSpec } from '../compute.js';
import { WorkerComputePool } from './worker_pool.js';

// A job module as plain JavaScript: worker threads load it without the test runner.
const dir = mkdtempSync(join(tmpdir(), 'strata-worker-pool-'));
const JOB = join(dir, 'job.mjs');
writeFileSync(
  JOB,
  `import { threadId } from 'node:worker_threads';
import { getPriority } from 'node:os';
export async function runJob(payload, ctx) {
  if (payload.op === 'nice') return { value: getPriority(0) };
  if (payload.op === 'echo') {
    const back = await ctx.call({ ask: payload.x });
    const buf = Float64Array.of(payload.x, back, ctx.now() > 0 ? 1 : 0);
    return { value: { thread: threadId, buf }, transfer: [buf.buffer] };
  }
  if (payload.op === 'spin') for (;;) {}
  throw new Error('boom: ' + payload.op);
}
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec = (payload: unknown, extra: Partial<JobSpec> = {}): JobSpec => ({
  module: pathToFileURL(JOB).href,
  run: () => Promise.reject(new Error('inline pools only')),
  payload,
  onCall: (call) => Promise.resolve({ value: (call as { ask: number }).ask * 2 }),
  ...extra,
});

describe('WorkerComputePool', () => {
  it.runIf(process.platform === 'linux')(
    'runs jobs at a lower CPU priority than the event loop (Linux: the worker thread only)',
    async () => {
      const before = getPriority(0);
      const pool = new WorkerComputePool(1, 7);
      expect(await pool.run(spec({ op: 'nice' }))).toBe(Math.min(19, before + 7));
      // The calling (event-loop) thread keeps its own.
      expect(getPriority(0)).toBe(before);
      await pool.close();
      const plain = new WorkerComputePool(1, 0);
      expect(await plain.run(spec({ op: 'nice' }))).toBe(before);
      await plain.close();
    },
  );

  it('runs a job on another thread, answering its calls back and moving its buffers', async () => {
    const pool = new WorkerComputePool(2);
    const out = (await pool.run(spec({ op: 'echo', x: 21 }))) as {
      thread: number;
      buf: Float64Array;
    };
    expect(out.thread).toBeGreaterThan(0); // not the main thread (0)
    expect([...out.buf]).toEqual([21, 42, 1]);
    await pool.close();
  });

  it('keeps the event loop free while a job spins, and an abort stops the job at once', async () => {
    const pool = new WorkerComputePool(1);
    const controller = new AbortController();
    const spinning = pool.run(spec({ op: 'spin' }, { signal: controller.signal }));
    // Timers on this thread still fire while the worker is busy.
    let ticks = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (++ticks === 5) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    // A job waiting behind the busy worker is canceled where it waits.
    const waitingController = new AbortController();
    const waiting = pool.run(spec({ op: 'echo', x: 5 }, { signal: waitingController.signal }));
    waitingController.abort(new Error('gave up waiting'));
    await expect(waiting).rejects.toThrow('gave up waiting');
    controller.abort(new Error('query canceled'));
    await expect(spinning).rejects.toThrow('query canceled');
    // The terminated worker is replaced: the pool goes on.
    const out = (await pool.run(spec({ op: 'echo', x: 1 }))) as { buf: Float64Array };
    expect([...out.buf]).toEqual([1, 2, 1]);
    await pool.close();
  });

  it('queues jobs beyond its size and reports a job’s failure as an error', async () => {
    const pool = new WorkerComputePool(1);
    const results = await Promise.allSettled([
      pool.run(spec({ op: 'echo', x: 1 })),
      pool.run(spec({ op: 'nope' })),
      pool.run(spec({ op: 'echo', x: 3 })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('boom: nope'));
    await pool.close();
    await expect(pool.run(spec({ op: 'echo', x: 1 }))).rejects.toThrow('closed');
  });
});
