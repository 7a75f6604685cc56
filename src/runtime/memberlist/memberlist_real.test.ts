import { afterEach, describe, expect, it } from 'vitest';
import { newMetricsRegistry } from '../metrics.js';
import { HttpTransport, RealClock, createRealRandom } from '../real/index.js';
import { CapturingLogger } from '../testing/index.js';
import { MemberlistKV } from './memberlist_kv.js';

/**
 * Two processes' worth of memberlist KVs over the real HTTP transport on loopback (the
 * internal RPC port carries memberlist.Packet and memberlist.Stream), in wall-clock time.
 */
const started: { kv: MemberlistKV; transport: HttpTransport; run: AbortController }[] = [];

afterEach(async () => {
  for (const s of started.splice(0)) {
    s.run.abort();
    await s.kv.stop();
    await s.transport.close();
  }
});

async function member(name: string, joinMembers: string[]): Promise<MemberlistKV> {
  const logger = new CapturingLogger();
  const transport = new HttpTransport({ host: '127.0.0.1', port: 0 }, { logger });
  await transport.listen();
  const kv = new MemberlistKV(
    {
      nodeName: name,
      joinMembers,
      gossipIntervalMs: 20,
      probeIntervalMs: 200,
      probeTimeoutMs: 100,
      pullPushIntervalMs: 500,
      leaveTimeoutMs: 1_000,
      broadcastTimeoutOnShutdownMs: 500,
    },
    {
      transport,
      clock: new RealClock(),
      random: createRealRandom(),
      logger,
      registry: newMetricsRegistry(),
      nodeName: name,
    },
  );
  await kv.start();
  const run = new AbortController();
  void kv.run(run.signal).catch(() => undefined);
  started.push({ kv, transport, run });
  return kv;
}

async function eventually(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('memberlist KV over the real HTTP transport', () => {
  it('two members join over loopback, converge on writes from both sides, and see a leave', async () => {
    const a = await member('a', []);
    const b = await member('b', [a.status().address!]);
    expect(b.name).toMatch(/^b-[0-9a-f]{8}$/);
    await eventually(() => a.status().numMembers === 2 && b.status().numMembers === 2);
    const ka = a.openClient('collectors/');
    const kb = b.openClient('collectors/');
    await ka.cas('from-a', () => new TextEncoder().encode('1'));
    await kb.cas('from-b', () => new TextEncoder().encode('2'));
    await eventually(
      () =>
        a.clientValue('collectors/from-b') !== undefined &&
        b.clientValue('collectors/from-a') !== undefined,
    );
    expect(await ka.list('')).toEqual(['from-a', 'from-b']);
    expect(await kb.list('')).toEqual(['from-a', 'from-b']);
    const leaving = started.pop()!;
    leaving.run.abort();
    await leaving.kv.stop();
    await leaving.transport.close();
    expect(a.status().members.find((m) => m.name === b.name)?.state).toBe('left');
  });
});
