import { describe, expect, it } from 'vitest';
import type { ReplicationSet, RingInstance } from '../ring/index.js';
import { doBatch } from './push_fanout.js';

function inst(addr: string): RingInstance {
  return {
    id: addr,
    addr,
    timestamp: 0,
    state: 'ACTIVE',
    tokens: [],
    zone: '',
    registeredTimestamp: 0,
  };
}

function set(addrs: string[], maxErrors: number): ReplicationSet {
  return { instances: addrs.map(inst), maxErrors, maxUnavailableZones: 0 };
}

class ClientErr extends Error {}

/** Calls answered by hand, to control the order outcomes arrive in. */
function manual() {
  const calls = new Map<string, { indexes: number[]; ok: () => void; fail: (e: Error) => void }>();
  const send = (i: RingInstance, indexes: number[]) =>
    new Promise<void>((ok, fail) => calls.set(i.addr, { indexes, ok, fail }));
  return { calls, send };
}

async function state(p: Promise<void>): Promise<string> {
  let s = 'pending';
  p.then(
    () => (s = 'ok'),
    (e: Error) => (s = `failed: ${e.message}`),
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return s;
}

const isClient = (e: unknown) => e instanceof ClientErr;

describe('doBatch', () => {
  it('groups items into one call per instance', () => {
    const { calls, send } = manual();
    doBatch([set(['a', 'b'], 0), set(['b', 'c'], 0)], send, isClient);
    expect([...calls].map(([a, c]) => [a, c.indexes])).toEqual([
      ['a', [0]],
      ['b', [0, 1]],
      ['c', [1]],
    ]);
  });

  it('succeeds as soon as every item has its quorum, before the slow call ends', async () => {
    const { calls, send } = manual();
    const run = doBatch([set(['a', 'b', 'c'], 1)], send, isClient);
    calls.get('a')?.ok();
    expect(await state(run.result)).toBe('pending');
    calls.get('c')?.ok();
    expect(await state(run.result)).toBe('ok');
    expect(await state(run.settled)).toBe('pending');
    calls.get('b')?.fail(new Error('late'));
    expect(await state(run.settled)).toBe('ok');
  });

  it('fails once an item has more failures of one family than maxErrors', async () => {
    const { calls, send } = manual();
    const run = doBatch([set(['a', 'b', 'c'], 1)], send, isClient);
    calls.get('a')?.fail(new Error('5xx one'));
    expect(await state(run.result)).toBe('pending');
    calls.get('b')?.fail(new Error('5xx two'));
    expect(await state(run.result)).toBe('failed: 5xx two');
  });

  it('a 4xx and a 5xx do not add up; with no call left the last error decides', async () => {
    const { calls, send } = manual();
    const run = doBatch([set(['a', 'b', 'c'], 1)], send, isClient);
    calls.get('a')?.fail(new ClientErr('4xx'));
    calls.get('b')?.fail(new Error('5xx'));
    expect(await state(run.result)).toBe('pending');
    calls.get('c')?.ok();
    expect(await state(run.result)).toBe('failed: 5xx');
  });

  it('two 4xx of three fail the item with the 4xx', async () => {
    const { calls, send } = manual();
    const run = doBatch([set(['a', 'b', 'c'], 1)], send, isClient);
    calls.get('a')?.fail(new ClientErr('bad'));
    calls.get('b')?.fail(new ClientErr('bad too'));
    expect(await state(run.result)).toBe('failed: bad too');
  });

  it('one failing item fails the batch even when others succeed', async () => {
    const { calls, send } = manual();
    const run = doBatch([set(['a'], 0), set(['b'], 0)], send, isClient);
    calls.get('a')?.ok();
    calls.get('b')?.fail(new Error('b down'));
    expect(await state(run.result)).toBe('failed: b down');
  });

  it('an empty batch succeeds at once', async () => {
    const run = doBatch([], () => Promise.reject(new Error('no call expected')), isClient);
    expect(await state(run.result)).toBe('ok');
  });
});
