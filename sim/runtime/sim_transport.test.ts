import { describe, expect, it } from 'vitest';
import {
  RpcError,
  jsonBody,
  parseJsonBody,
  type Env,
  type RpcResponse,
} from '../../src/runtime/index.js';
import type { SimProcess } from '../cluster/index.js';
import { createTestWorld, type TestWorld } from '../testing/index.js';
import type { SimRuntimeConfig } from './sim_services.js';

const EMPTY = { body: new Uint8Array(0), contentType: 'application/json' };

/** A process that serves `echo`, `fail`, `boom` and `slow`, and counts what it handled. */
function serverProcess(env: Env, handled: string[]): SimProcess {
  return {
    async start() {
      env.transport.handle('echo', (req) => {
        handled.push(`echo ${parseJsonBody<{ n: number }>(req).n}`);
        return Promise.resolve(
          jsonBody({
            from: env.nodeName,
            n: parseJsonBody<{ n: number }>(req).n,
            h: req.headers?.['x-scope-orgid'],
          }),
        );
      });
      env.transport.handle('fail', () =>
        Promise.reject(new RpcError('resource_exhausted', 'too many')),
      );
      env.transport.handle('boom', () => Promise.reject(new Error('handler exploded')));
      env.transport.handle('slow', async () => {
        handled.push('slow started');
        await env.clock.sleep(60_000);
        handled.push('slow finished');
        return EMPTY;
      });
      await env.transport.listen();
    },
    stop: () => Promise.resolve(),
  };
}

const idle = (): SimProcess => ({ start: () => Promise.resolve(), stop: () => Promise.resolve() });

interface CallResult {
  ok?: unknown;
  code?: string;
  message?: string;
  at: number;
}

async function world(configure?: (config: SimRuntimeConfig) => void) {
  const w = createTestWorld({ seed: 'net', ...(configure === undefined ? {} : { configure }) });
  const handled: Record<string, string[]> = { a: [], b: [] };
  w.cluster.addNode('a', (env) => serverProcess(env, handled.a!));
  w.cluster.addNode('b', (env) => serverProcess(env, handled.b!));
  w.cluster.addNode('c', idle);
  w.kernel.after(0, { kind: 'boot' }, () => ['a', 'b', 'c'].forEach((n) => w.cluster.start(n)));
  await w.kernel.run();
  return {
    ...w,
    handled,
    call: (from: string, to: string, method: string, n = 0, timeoutMs?: number) =>
      call(w, from, to, method, n, timeoutMs),
  };
}

/** Issues a call from `from`'s current process and records its outcome and virtual completion time. */
function call(
  w: TestWorld,
  from: string,
  to: string,
  method: string,
  n: number,
  timeoutMs?: number,
): CallResult[] {
  const out: CallResult[] = [];
  w.kernel.after(0, { kind: 'test.call' }, () => {
    const env = w.cluster.node(from).env!;
    const start = w.kernel.now();
    env.transport
      .call(
        to,
        { method, ...jsonBody({ n }), headers: { 'x-scope-orgid': 'tenant-1' } },
        timeoutMs === undefined ? {} : { timeoutMs },
      )
      .then(
        (res: RpcResponse) => out.push({ ok: parseJsonBody(res), at: w.kernel.now() - start }),
        (err: unknown) =>
          out.push({
            code: (err as RpcError).code,
            message: (err as Error).message,
            at: w.kernel.now() - start,
          }),
      );
  });
  return out;
}

describe('SimTransport', () => {
  it('delivers a call and its reply with network latency, headers included', async () => {
    const w = await world();
    const out = w.call('a', 'b', 'echo', 7);
    await w.kernel.run();
    expect(out).toHaveLength(1);
    expect(out[0]!.ok).toEqual({ from: 'b', n: 7, h: 'tenant-1' });
    expect(out[0]!.at).toBeGreaterThanOrEqual(0);
  });

  it('maps handler errors: RpcError keeps its code, anything else is internal, unknown methods unimplemented', async () => {
    const w = await world();
    const fail = w.call('a', 'b', 'fail');
    const boom = w.call('a', 'b', 'boom');
    const unknown = w.call('a', 'b', 'nope');
    await w.kernel.run();
    expect(fail[0]).toMatchObject({ code: 'resource_exhausted', message: 'too many' });
    expect(boom[0]).toMatchObject({ code: 'internal', message: 'handler exploded' });
    expect(unknown[0]).toMatchObject({ code: 'unimplemented' });
  });

  it("answers 'unavailable' when nothing listens at the address", async () => {
    const w = await world();
    const out = w.call('a', 'c', 'echo');
    const nowhere = w.call('a', 'zz', 'echo');
    await w.kernel.run();
    expect(out[0]).toMatchObject({ code: 'unavailable' });
    expect(nowhere[0]).toMatchObject({ code: 'unavailable' });
  });

  it("times out with 'deadline_exceeded' after timeoutMs of virtual time", async () => {
    const w = await world();
    const out = w.call('a', 'b', 'slow', 0, 1_000);
    const dflt = w.call('a', 'b', 'slow');
    await w.kernel.run();
    expect(out[0]).toMatchObject({ code: 'deadline_exceeded', at: 1_000 });
    expect(dflt[0]).toMatchObject({ code: 'deadline_exceeded', at: 5_000 });
  });

  it("aborts with 'aborted' when the caller's signal fires", async () => {
    const w = await world();
    const out: string[] = [];
    w.kernel.after(0, { kind: 't' }, () => {
      const env = w.cluster.node('a').env!;
      const controller = new AbortController();
      env.transport
        .call('b', { method: 'slow', ...EMPTY }, { signal: controller.signal })
        .catch((e: unknown) => out.push((e as RpcError).code));
      env.clock.setTimer(100, () => controller.abort());
    });
    await w.kernel.run();
    expect(out).toEqual(['aborted']);
  });

  it('a symmetric partition blocks both directions until healed', async () => {
    const w = await world();
    w.kernel.after(0, { kind: 'partition' }, () => w.services.network.partition([['a'], ['b']]));
    await w.kernel.run();
    const ab = w.call('a', 'b', 'echo', 1);
    const ba = w.call('b', 'a', 'echo', 2);
    await w.kernel.run();
    expect(ab[0]).toMatchObject({ code: 'deadline_exceeded' });
    expect(ba[0]).toMatchObject({ code: 'deadline_exceeded' });
    expect(w.handled.a).toEqual([]);
    expect(w.handled.b).toEqual([]);
    w.kernel.after(0, { kind: 'heal' }, () => w.services.network.heal());
    await w.kernel.run();
    const healed = w.call('a', 'b', 'echo', 3);
    await w.kernel.run();
    expect(healed[0]!.ok).toMatchObject({ n: 3 });
  });

  it('a one-way partition blocks exactly one direction', async () => {
    const w = await world();
    w.kernel.after(0, { kind: 'partition' }, () => w.services.network.partitionOneWay('a', 'b'));
    await w.kernel.run();
    // a -> b: the request never arrives.
    const ab = w.call('a', 'b', 'echo', 1);
    // b -> a: the request arrives and is handled, but the reply (a -> b) is lost.
    const ba = w.call('b', 'a', 'echo', 2);
    // c is not involved at all.
    const cb = w.call('c', 'b', 'echo', 3);
    const ca = w.call('c', 'a', 'echo', 4);
    await w.kernel.run();
    expect(w.handled.b).toEqual(['echo 3']);
    expect([...w.handled.a!].sort()).toEqual(['echo 2', 'echo 4']);
    expect(ab[0]).toMatchObject({ code: 'deadline_exceeded' });
    expect(ba[0]).toMatchObject({ code: 'deadline_exceeded' });
    expect(cb[0]!.ok).toMatchObject({ n: 3 });
    expect(ca[0]!.ok).toMatchObject({ n: 4 });
  });

  it('loses and duplicates messages at the configured rates, deterministically', async () => {
    const run = async (): Promise<{ handled: number; ok: number; timedOut: number }> => {
      const w = await world((c) => {
        c.network.loss = 0.2;
        c.network.duplication = 0.3;
      });
      const outs = Array.from({ length: 200 }, (_, i) => w.call('a', 'b', 'echo', i));
      await w.kernel.run();
      return {
        handled: w.handled.b!.length,
        ok: outs.filter((o) => o[0]?.ok !== undefined).length,
        timedOut: outs.filter((o) => o[0]?.code === 'deadline_exceeded').length,
      };
    };
    const r = await run();
    expect(await run()).toEqual(r);
    expect(r.ok + r.timedOut).toBe(200);
    // Lost requests never reach b; duplicated ones reach it twice.
    expect(r.timedOut).toBeGreaterThan(20);
    expect(r.handled).toBeGreaterThan(200 * 0.8);
    expect(r.handled).not.toBe(r.ok);
  });
});

describe('crashes and the network', () => {
  it("calls to a crashed node fail with 'unavailable'; a call in flight when it dies times out", async () => {
    const w = await world();
    const inflight = w.call('a', 'b', 'slow');
    w.kernel.after(50, { kind: 'crash' }, () => w.cluster.crash('b'));
    await w.kernel.run({ until: w.kernel.now() + 100 });
    const later = w.call('a', 'b', 'echo');
    await w.kernel.run();
    expect(w.handled.b).toEqual(['slow started']);
    expect(inflight[0]).toMatchObject({ code: 'deadline_exceeded' });
    expect(later[0]).toMatchObject({ code: 'unavailable' });
  });

  it('timers and pending calls of a crashed node never fire; the restarted node serves again', async () => {
    const w = await world();
    const fired: string[] = [];
    w.kernel.after(0, { kind: 'arm' }, () => {
      const env = w.cluster.node('a').env!;
      env.clock.setTimer(1_000, () => fired.push('timer'));
      env.clock.every(100, () => {
        fired.push('every');
      });
      void env.clock.sleep(500).then(() => fired.push('sleep'));
      env.transport.call('b', { method: 'slow', ...EMPTY }, { timeoutMs: 2_000 }).then(
        () => fired.push('call resolved'),
        () => fired.push('call rejected'),
      );
    });
    w.kernel.after(50, { kind: 'crash' }, () => w.cluster.crash('a'));
    await w.kernel.run({ until: w.kernel.now() + 120_000 });
    expect(fired).toEqual([]);
    expect(w.kernel.eventsDropped).toBeGreaterThan(0);
    w.kernel.after(0, { kind: 'restart' }, () => w.cluster.restart('a'));
    await w.kernel.run();
    const out = w.call('b', 'a', 'echo', 9);
    await w.kernel.run();
    expect(out[0]!.ok).toMatchObject({ from: 'a', n: 9 });
    expect(w.cluster.node('a').incarnationNumber).toBe(2);
  });

  it('stop() aborts the start signal, calls stop and closes the transport', async () => {
    const w = createTestWorld({ seed: 'stop' });
    const seen: string[] = [];
    w.cluster.addNode('s', (env) => ({
      async start(signal) {
        signal.addEventListener('abort', () => seen.push('signal aborted'));
        env.transport.handle('x', () => Promise.resolve(EMPTY));
        await env.transport.listen();
      },
      stop: () => {
        seen.push('stop called');
        return Promise.resolve();
      },
    }));
    w.cluster.addNode('t', idle);
    w.kernel.after(0, { kind: 'boot' }, () => {
      w.cluster.start('s');
      w.cluster.start('t');
    });
    w.kernel.after(10, { kind: 'stop' }, () => void w.cluster.stop('s'));
    await w.kernel.run();
    expect(seen).toEqual(['signal aborted', 'stop called']);
    expect(w.cluster.node('s').state).toBe('down');
    const out = call(w, 't', 's', 'x', 0);
    await w.kernel.run();
    expect(out[0]).toMatchObject({ code: 'unavailable' });
  });
});
