import { describe, expect, it } from 'vitest';
import {
  FIRST_TENANT,
  RequestQueue,
  TooManyOutstandingRequestsError,
  type QueueLimits,
  type TenantCursor,
} from '../../../src/scheduler/index.js';
import { fifoRequestQueue } from './canaries_frontend.js';

const limits: QueueLimits = { maxOutstanding: () => 3, maxQueriers: () => 0 };

/** Takes `n` requests as one querier loop would, passing its cursor back each time. */
async function drain(q: RequestQueue<string>, n: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: TenantCursor = FIRST_TENANT;
  for (let i = 0; i < n; i++) {
    const got = await q.next('querier-1', cursor);
    cursor = got.cursor;
    out.push(`${got.tenant}:${got.request}`);
  }
  return out;
}

function flood(q: RequestQueue<string>): void {
  q.querierConnected('querier-1');
  for (const r of ['b1', 'b2', 'b3']) q.enqueue('team-b', r);
  q.enqueue('team-a', 'a1');
}

describe('fifo_frontend_queue', () => {
  it('serves every tenant in arrival order where the real queue takes turns', async () => {
    const real = new RequestQueue<string>({ forgetDelayMs: 0 }, { limits });
    flood(real);
    expect(await drain(real, 4)).toEqual(['team-b:b1', 'team-a:a1', 'team-b:b2', 'team-b:b3']);

    const fifo = fifoRequestQueue<string>({ forgetDelayMs: 0 }, { limits });
    flood(fifo);
    expect(await drain(fifo, 4)).toEqual(['team-b:b1', 'team-b:b2', 'team-b:b3', 'team-a:a1']);
  });

  it("keeps each tenant's own bound: the flooder gets 429, the other tenant does not", async () => {
    const fifo = fifoRequestQueue<string>({ forgetDelayMs: 0 }, { limits });
    flood(fifo);
    expect(() => fifo.enqueue('team-b', 'b4')).toThrow(TooManyOutstandingRequestsError);
    fifo.enqueue('team-a', 'a2');
    expect([fifo.length('team-a'), fifo.length('team-b')]).toEqual([2, 3]);
    // A request whose caller went away no longer counts.
    const gone = new AbortController();
    await drain(fifo, 1);
    fifo.enqueue('team-b', 'b5', gone.signal);
    gone.abort();
    expect(fifo.length('team-b')).toBe(2);
    fifo.enqueue('team-b', 'b6');
    expect(await drain(fifo, 4)).toEqual(['team-b:b2', 'team-b:b3', 'team-a:a1', 'team-a:a2']);
    expect(await drain(fifo, 1)).toEqual(['team-b:b6']);
  });
});
