import { describe, expect, it } from 'vitest';
import type { ReplicationSet, RingInstance } from '../ring/index.js';
import { RpcError } from '../runtime/index.js';
import { doReplicationSet } from './replication_set.js';

function inst(id: string, zone = ''): RingInstance {
  return {
    id,
    addr: `${id}:9095`,
    zone,
    state: 'ACTIVE',
    tokens: [],
    timestamp: 0,
    registeredTimestamp: 0,
  };
}

const set = (
  instances: RingInstance[],
  maxErrors: number,
  maxUnavailableZones = 0,
): ReplicationSet => ({
  instances,
  maxErrors,
  maxUnavailableZones,
});

describe('doReplicationSet', () => {
  it('tolerates maxErrors failures and returns the answers in instance order', async () => {
    const out = await doReplicationSet(set([inst('a'), inst('b'), inst('c')], 1), (i) =>
      i.id === 'a'
        ? Promise.reject(new RpcError('unavailable', 'a is down'))
        : Promise.resolve(i.id),
    );
    expect(out.map((r) => r.value)).toEqual(['b', 'c']);
  });

  it('fails with the error that exceeded maxErrors', async () => {
    await expect(
      doReplicationSet(set([inst('a'), inst('b'), inst('c')], 1), (i) =>
        i.id === 'c'
          ? Promise.resolve(i.id)
          : Promise.reject(new RpcError('unavailable', `${i.id} down`)),
      ),
    ).rejects.toThrow('b down');
  });

  it('returns once the quorum answered and aborts the calls still running', async () => {
    let aborted = false;
    const out = await doReplicationSet(set([inst('a'), inst('b'), inst('c')], 1), (i, signal) => {
      if (i.id !== 'c') return Promise.resolve(i.id);
      return new Promise<string>((_, reject) => {
        signal.addEventListener('abort', () => {
          aborted = true;
          reject(new RpcError('aborted', 'aborted'));
        });
      });
    });
    expect(out.map((r) => r.value)).toEqual(['a', 'b']);
    expect(aborted).toBe(true);
  });

  it('with zones, tolerates a whole failed zone but not a second one', async () => {
    const instances = [inst('a1', 'a'), inst('a2', 'a'), inst('b1', 'b'), inst('c1', 'c')];
    const ok = await doReplicationSet(set(instances, 0, 1), (i) =>
      i.zone === 'a' ? Promise.reject(new Error(`${i.id} down`)) : Promise.resolve(i.id),
    );
    expect(ok.map((r) => r.value)).toEqual(['b1', 'c1']);
    await expect(
      doReplicationSet(set(instances, 0, 1), (i) =>
        i.id === 'a1' || i.id === 'b1'
          ? Promise.reject(new Error(`${i.id} down`))
          : Promise.resolve(i.id),
      ),
    ).rejects.toThrow('b1 down');
  });

  it('rejects with an abort error when the caller aborts', async () => {
    const controller = new AbortController();
    const p = doReplicationSet(
      set([inst('a')], 0),
      () => new Promise<string>(() => {}),
      controller.signal,
    );
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });

  it("passes the caller's abort and its reason on to the calls, and lets go of the caller after", async () => {
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const p = doReplicationSet(
      set([inst('a'), inst('b')], 0),
      (_i, signal) => {
        seen.push(signal);
        return new Promise<string>(() => {});
      },
      controller.signal,
    );
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.map((s) => s.reason as unknown)).toEqual([reason, reason]);

    // Once decided, the caller's signal has no listener of the set's left on it.
    const caller = new AbortController();
    let calls: AbortSignal | undefined;
    await doReplicationSet(
      set([inst('a')], 0),
      (_i, signal) => {
        calls = signal;
        return Promise.resolve('a');
      },
      caller.signal,
    );
    caller.abort();
    expect(calls?.aborted).toBe(false);
  });
});
