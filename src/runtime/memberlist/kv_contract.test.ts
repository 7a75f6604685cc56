import { describe, expect, it } from 'vitest';
import { MemoryNetwork } from '../memory/index.js';
import { newMetricsRegistry } from '../metrics.js';
import { createSeededRandom } from '../prng.js';
import { CapturingLogger, ManualClock, describeKVContract } from '../testing/index.js';
import { MemberlistKV } from './memberlist_kv.js';
import { TestCluster } from './memberlist_fixture.testing.js';
import { openMemberlistClient } from './open_client.js';

/**
 * The shared KV contract, for two clients of one member (two rings of one process, in Cortex
 * terms): everything applies, including lost-update-free concurrent CAS, because a member's
 * CAS is atomic on its own state. Between members the store is eventually consistent, so the
 * contract's read-your-peer's-write and linearizable-CAS cases do not apply there; the
 * memberlist tests cover cross-member behaviour (gossip, push/pull, merges) instead.
 */
describeKVContract('memberlist (two clients of one member)', async () => {
  const network = new MemoryNetwork();
  const transport = network.transport('m1');
  await transport.listen();
  const kv = new MemberlistKV(
    { randomizeNodeName: false },
    {
      transport,
      clock: new ManualClock(Date.UTC(2026, 0, 1)),
      random: createSeededRandom('contract'),
      logger: new CapturingLogger(),
      registry: newMetricsRegistry(),
      nodeName: 'm1',
    },
  );
  await kv.start();
  return {
    kv: kv.openClient('collectors/'),
    peer: kv.openClient('collectors/'),
    cleanup: () => kv.stop(),
  };
});

describe('memberlist KV clients', () => {
  it('are opened by the KV providers from the spec, which carries the process memberlist KV', async () => {
    const cluster = new TestCluster();
    const m = await cluster.add('m');
    const client = openMemberlistClient({ store: 'memberlist', memberlistKV: () => m.kv }, 'p/');
    await client.cas('k', () => new TextEncoder().encode('v'));
    expect(m.kv.status().keys.map((k) => k.key)).toEqual(['p/k']);
    expect(() => openMemberlistClient({ store: 'memberlist' }, 'p/')).toThrow(/no memberlist KV/);
    expect(() =>
      openMemberlistClient({ store: 'memberlist', memberlistKV: () => m.kv, codec: 'x' }, 'p/'),
    ).toThrow(/codec "x" is not registered/);
    await cluster.stopAll();
  });

  it('reject writes once closed, and a stopped member ends every watch', async () => {
    const cluster = new TestCluster();
    const m = await cluster.add('m');
    const a = m.kv.openClient('');
    await a.close();
    await expect(a.cas('k', () => new Uint8Array([1]))).rejects.toThrow(/closed/);
    const b = m.kv.openClient('');
    const watch = b.watchPrefix('', new AbortController().signal, () => true);
    await cluster.stopAll();
    await watch;
  });

  it('give up a CAS whose merge never sees a change, after the retry bound', async () => {
    const cluster = new TestCluster([
      {
        id: 'never',
        encode: (v) => v as Uint8Array,
        decode: (b) => b,
        fromClient: (b) => b,
        toClient: (v) => v as Uint8Array,
        merge: () => undefined,
        removeTombstones: (value) => ({ value, total: 0, removed: 0 }),
        content: () => ['x'],
      },
    ]);
    const m = await cluster.add('m', { maxCasRetries: 3, noChangeRetrySleepMs: 100 });
    const c = m.kv.openClient('', 'never');
    await c.cas('k', () => new Uint8Array([1]));
    const failing = c.cas('k', () => new Uint8Array([2])).catch((e: unknown) => e);
    await cluster.advance(1_000);
    expect(String(await failing)).toMatch(/no change on each of 3 attempts/);
    await cluster.stopAll();
  });
});
