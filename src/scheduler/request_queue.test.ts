import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Registry } from 'prom-client';
import { tenantQueriers } from './querier_shards.js';
import {
  FIRST_TENANT,
  QueueStoppedError,
  RequestQueue,
  TooManyOutstandingRequestsError,
  type QueueLimits,
  type TenantCursor,
} from './request_queue.js';

function limits(maxOutstanding = 100, maxQueriers = 0): QueueLimits {
  return { maxOutstanding: () => maxOutstanding, maxQueriers: () => maxQueriers };
}

/** Takes `n` requests for one querier loop, in order. */
async function drain(q: RequestQueue<string>, querier: string, n: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: TenantCursor = FIRST_TENANT;
  for (let i = 0; i < n; i++) {
    const got = await q.next(querier, cursor);
    cursor = got.cursor;
    out.push(got.request);
  }
  return out;
}

describe('RequestQueue', () => {
  it('serves tenants round-robin, each tenant in FIFO order', async () => {
    const q = new RequestQueue<string>({ forgetDelayMs: 0 }, { limits: limits() });
    q.querierConnected('q1');
    for (let i = 0; i < 5; i++) q.enqueue('flood', `flood-${i}`);
    q.enqueue('quiet', 'quiet-0');
    q.enqueue('other', 'other-0');
    // The quiet tenants' single queries come out within the first round, not after the flood.
    expect(await drain(q, 'q1', 7)).toEqual([
      'flood-0',
      'quiet-0',
      'other-0',
      'flood-1',
      'flood-2',
      'flood-3',
      'flood-4',
    ]);
    expect(q.length('flood')).toBe(0);
  });

  it('refuses a request beyond the per-tenant bound with 429 and counts it, other tenants unaffected', async () => {
    const registry = new Registry();
    const metrics = {
      queueLength: new Gauge({
        name: 'ql',
        help: 'h',
        labelNames: ['user'],
        registers: [registry],
      }),
      discarded: new Counter({
        name: 'dc',
        help: 'h',
        labelNames: ['user'],
        registers: [registry],
      }),
    };
    const q = new RequestQueue<string>({ forgetDelayMs: 0 }, { limits: limits(2), metrics });
    q.enqueue('a', 'a1');
    q.enqueue('a', 'a2');
    let caught: unknown;
    try {
      q.enqueue('a', 'a3');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TooManyOutstandingRequestsError);
    expect((caught as TooManyOutstandingRequestsError).status).toBe(429);
    expect((caught as Error).message).toBe('too many outstanding requests');
    expect(() => q.enqueue('b', 'b1')).not.toThrow();
    expect(q.length('a')).toBe(2);
    expect(await registry.getSingleMetricAsString('dc')).toContain('dc{user="a"} 1');
  });

  it('hands a request to a querier that was already waiting', async () => {
    const q = new RequestQueue<string>({ forgetDelayMs: 0 }, { limits: limits() });
    q.querierConnected('q1');
    const waiting = q.next('q1', FIRST_TENANT);
    q.enqueue('t', 'r1');
    await expect(waiting).resolves.toMatchObject({ request: 'r1', tenant: 't' });
  });

  it('drops requests whose caller gave up while they were queued', async () => {
    const q = new RequestQueue<string>({ forgetDelayMs: 0 }, { limits: limits() });
    const gone = new AbortController();
    q.enqueue('t', 'abandoned', gone.signal);
    q.enqueue('t', 'live');
    gone.abort();
    expect(await drain(q, 'q1', 1)).toEqual(['live']);
  });

  it("gives a tenant's requests only to the queriers of its shuffle shard", async () => {
    const queriers = ['q1', 'q2', 'q3', 'q4'];
    const shard = tenantQueriers('t', 2, queriers);
    expect(shard?.size).toBe(2);
    const outside = queriers.find((id) => !shard?.has(id)) as string;
    const inside = [...(shard ?? [])][0] as string;
    const q = new RequestQueue<string>({ forgetDelayMs: 0 }, { limits: limits(100, 2) });
    for (const id of queriers) q.querierConnected(id);
    q.enqueue('t', 'r1');
    const stop = new AbortController();
    const outsider = q.next(outside, FIRST_TENANT, stop.signal);
    await expect(q.next(inside, FIRST_TENANT)).resolves.toMatchObject({ request: 'r1' });
    stop.abort();
    await expect(outsider).rejects.toThrow('aborted');
  });

  it('computes the same shard for the same tenant and queriers, and every querier with 0', () => {
    const queriers = ['a', 'b', 'c', 'd', 'e'];
    expect(tenantQueriers('x', 3, queriers)).toEqual(tenantQueriers('x', 3, queriers));
    expect(tenantQueriers('x', 0, queriers)).toBeUndefined();
    expect(tenantQueriers('x', 5, queriers)).toBeUndefined();
    const spread = new Set<string>();
    for (let i = 0; i < 50; i++)
      for (const id of tenantQueriers(`t${i}`, 1, queriers) ?? []) spread.add(id);
    expect(spread.size).toBe(5);
  });

  it('keeps a querier that vanished in the shards until the forget delay passes', () => {
    const q = new RequestQueue<string>({ forgetDelayMs: 10_000 }, { limits: limits() });
    q.querierConnected('q1');
    q.querierConnected('q2');
    q.querierDisconnected('q2', 1_000, false);
    expect(q.queriers).toEqual(['q1', 'q2']);
    q.forgetDisconnected(5_000);
    expect(q.queriers).toEqual(['q1', 'q2']);
    q.forgetDisconnected(11_000);
    expect(q.queriers).toEqual(['q1']);
    q.querierConnected('q3');
    q.querierDisconnected('q3', 12_000, true);
    expect(q.queriers).toEqual(['q1']);
  });

  it('rejects waiting queriers and new requests once stopped, returning what was queued', async () => {
    const q = new RequestQueue<string>({ forgetDelayMs: 0 }, { limits: limits() });
    const waiting = q.next('q1', FIRST_TENANT);
    const left = q.stop();
    await expect(waiting).rejects.toBeInstanceOf(QueueStoppedError);
    expect(left).toEqual([]);
    expect(() => q.enqueue('t', 'r')).toThrow(QueueStoppedError);
  });
});
