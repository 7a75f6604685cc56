import { afterEach, describe, expect, it } from 'vitest';
import { TestCluster } from './memberlist_fixture.testing.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const text = (v: Uint8Array | undefined): string | undefined =>
  v === undefined ? undefined : dec.decode(v);

let cluster: TestCluster;
afterEach(async () => {
  await cluster.stopAll();
});

async function threeMembers(): Promise<TestCluster> {
  cluster = new TestCluster();
  await cluster.add('a');
  await cluster.add('b', { joinMembers: ['a'] });
  await cluster.add('c', { joinMembers: ['b'] });
  return cluster;
}

const allAlive = (c: TestCluster, names: string[]): boolean =>
  names.every((o) => names.every((n) => c.stateOf(o, n) === 'alive'));

describe('memberlist membership', () => {
  it('joins through seed addresses: every member learns every other, transitively', async () => {
    const c = await threeMembers();
    // b joined a and c joined b at start (push/pull); gossip spreads c to a.
    const took = await c.until(() => allAlive(c, ['a', 'b', 'c']), 5_000);
    expect(took).toBeLessThanOrEqual(1_000);
    expect(c.member('a').kv.status().numMembers).toBe(3);
    const metrics = await c
      .member('a')
      .registry.getSingleMetricAsString('memberlist_client_cluster_members_count');
    expect(metrics).toContain('memberlist_client_cluster_members_count 3');
  });

  it('detects a crashed member: suspect after failed direct and indirect probes, then dead, then forgotten', async () => {
    const c = await threeMembers();
    await c.until(() => allAlive(c, ['a', 'b', 'c']), 5_000);
    c.isolate('c');
    const suspected = await c.until(() => c.stateOf('a', 'c') !== 'alive', 10_000);
    // Probed within two rounds (round robin over two peers, 1s rounds).
    expect(suspected).toBeLessThanOrEqual(3_000);
    const dead = await c.until(
      () => c.stateOf('a', 'c') === 'dead' && c.stateOf('b', 'c') === 'dead',
      60_000,
    );
    // Suspicion: 4 × max(1, log10 3) × 1s = 4s minimum, shortened by b's confirmation.
    expect(dead).toBeLessThanOrEqual(25_000);
    expect(c.member('a').kv.status().numMembers).toBe(2);
    // Forgotten after gossip_to_dead_nodes_time (5s here).
    await c.until(() => c.stateOf('a', 'c') === undefined, 10_000);
    c.heal('c');
    // A forgotten member is unknown, not dead: c's own gossip or a rejoin brings it back.
    await c.member('c').kv.join(['a']);
    await c.until(() => allAlive(c, ['a', 'b', 'c']), 10_000);
  });

  it('a suspected member that comes back refutes with a higher incarnation', async () => {
    const c = await threeMembers();
    await c.until(() => allAlive(c, ['a', 'b', 'c']), 5_000);
    const before = c.member('c').kv.status().incarnation;
    c.isolate('c');
    await c.until(
      () => c.stateOf('a', 'c') === 'suspect' || c.stateOf('b', 'c') === 'suspect',
      10_000,
    );
    c.heal('c');
    await c.until(() => allAlive(c, ['a', 'b', 'c']), 30_000);
    expect(c.member('c').kv.status().incarnation).toBeGreaterThan(before);
  });

  it('a member that stops leaves: the others record it as left at once, not dead after a timeout', async () => {
    const c = await threeMembers();
    await c.until(() => allAlive(c, ['a', 'b', 'c']), 5_000);
    const b = c.member('b');
    b.run.abort();
    const stopping = b.kv.stop();
    const took = await c.until(
      () => c.stateOf('a', 'b') === 'left' && c.stateOf('c', 'b') === 'left',
      5_000,
    );
    expect(took).toBeLessThanOrEqual(1_000);
    await c.advance(2_000);
    await stopping;
    c.members.delete('b');
  });

  it('run() retries the join with backoff and fails when abort_if_cluster_join_fails is set', async () => {
    cluster = new TestCluster();
    const lonely = await cluster.add('x', { joinMembers: ['nobody'], maxJoinRetries: 2 });
    let outcome: unknown;
    lonely.running.then(
      () => (outcome = 'resolved'),
      (err: unknown) => (outcome = err),
    );
    await cluster.advance(5_000);
    expect(String(outcome)).toMatch(/failed to join memberlist cluster on startup: nobody:/);
  });

  it('run() keeps going when joining fails and abort_if_cluster_join_fails is off; a later seed works', async () => {
    cluster = new TestCluster();
    const x = await cluster.add('x', {
      joinMembers: ['y'],
      maxJoinRetries: 1,
      abortIfJoinFails: false,
      rejoinIntervalMs: 2_000,
    });
    await cluster.advance(3_000);
    await cluster.add('y');
    await cluster.until(
      () => cluster.stateOf('x', 'y') === 'alive' && cluster.stateOf('y', 'x') === 'alive',
      5_000,
    );
    let settled = false;
    void x.running.then(() => (settled = true));
    await cluster.advance(100);
    expect(settled).toBe(false);
  });
});

describe('memberlist KV', () => {
  it('gossips a CAS to every member and notifies their watchers', async () => {
    const c = await threeMembers();
    await c.until(() => allAlive(c, ['a', 'b', 'c']), 5_000);
    const ka = c.member('a').kv.openClient('collectors/');
    const kc = c.member('c').kv.openClient('collectors/');
    const seen: (string | undefined)[] = [];
    const ac = new AbortController();
    const watch = kc.watchKey('k', ac.signal, (v) => {
      seen.push(text(v));
      return true;
    });
    await ka.cas('k', () => enc.encode('v1'));
    const took = await c.until(() => seen.at(-1) === 'v1', 5_000);
    // One or two gossip rounds (100ms), not a push/pull interval (5s).
    expect(took).toBeLessThanOrEqual(500);
    expect(seen[0]).toBeUndefined();
    await kc.delete('k');
    await c.until(() => seen.at(-1) === undefined, 0); // c's own watch: without gossip
    await c.until(() => c.member('a').kv.clientValue('collectors/k') === undefined, 5_000);
    expect(await ka.get('k')).toBeUndefined();
    expect(await ka.list('')).toEqual([]);
    ac.abort();
    await watch;
  });

  it('a member that joins later gets the whole state by push/pull', async () => {
    cluster = new TestCluster();
    const a = await cluster.add('a');
    const ka = a.kv.openClient('p/');
    await ka.cas('x', () => enc.encode('1'));
    await ka.cas('y', () => enc.encode('2'));
    await ka.cas('gone', () => enc.encode('3'));
    await ka.delete('gone');
    await cluster.advance(5_000); // broadcasts to nobody run out
    const b = await cluster.add('b', { joinMembers: ['a'] });
    const kb = b.kv.openClient('p/');
    expect(await kb.list('')).toEqual(['x', 'y']);
    expect(text(await kb.get('y'))).toBe('2');
    expect(a.kv.status().keys.map((k) => [k.key, k.deleted])).toEqual([
      ['p/gone', true],
      ['p/x', false],
      ['p/y', false],
    ]);
  });

  it('periodic push/pull repairs an update whose gossip a member missed', async () => {
    const c = await threeMembers();
    await c.until(() => allAlive(c, ['a', 'b', 'c']), 5_000);
    // Cut c for less than a suspicion timeout: it stays a member, but misses the update.
    c.isolate('c');
    await c
      .member('a')
      .kv.openClient('')
      .cas('k', () => enc.encode('v'));
    await c.until(() => c.member('b').kv.clientValue('k') !== undefined, 1_000);
    // Retransmit limit 4 × ceil(log10(4)) = 4 sends, 3 targets a round: gone from the queues.
    await c.advance(500);
    for (const name of ['a', 'b', 'c'])
      expect(c.member(name).kv.status().queued).toEqual({ local: 0, gossip: 0 });
    c.heal('c');
    expect(c.member('c').kv.clientValue('k')).toBeUndefined();
    const pulls = async (name: string): Promise<string> =>
      c.member(name).registry.getSingleMetricAsString('memberlist_client_state_pulls_total');
    const took = await c.until(() => c.member('c').kv.clientValue('k') !== undefined, 30_000);
    // Every member runs a push/pull every 5s here (pullPushIntervalMs): c's own, or a peer's
    // with c, brings it within one interval and a bit.
    expect(took).toBeLessThanOrEqual(6_000);
    expect(text(c.member('c').kv.clientValue('k'))).toBe('v');
    expect(await pulls('c')).not.toContain('memberlist_client_state_pulls_total 0');
  });

  it('records sent and received messages and key versions for the status page', async () => {
    const c = await threeMembers();
    await c.until(() => allAlive(c, ['a', 'b', 'c']), 5_000);
    await c
      .member('a')
      .kv.openClient('')
      .cas('k', () => enc.encode('v'));
    await c.advance(1_000);
    const sa = c.member('a').kv.status();
    const sb = c.member('b').kv.status();
    expect(sa.sentMessages?.some((m) => m.key === 'k' && m.version === 1)).toBe(true);
    expect(sb.receivedMessages?.some((m) => m.key === 'k' && m.version === 1)).toBe(true);
    expect(sb.keys).toEqual([
      expect.objectContaining({ key: 'k', codec: 'lww', version: 1, deleted: false }),
    ]);
  });

  it('ignores values of unknown codecs and counts them invalid', async () => {
    cluster = new TestCluster();
    const a = await cluster.add('a');
    await cluster.add('b', { joinMembers: ['a'] });
    const body = {
      kind: 'gossip',
      from: 'b',
      messages: [
        { type: 'kv', pair: { key: 'k', value: '', codec: 'nope', deleted: false, updatedAt: 1 } },
      ],
    };
    await cluster.member('b').transport.call('a', {
      method: 'memberlist.Packet',
      body: enc.encode(JSON.stringify(body)),
      contentType: 'application/json',
    });
    const invalid = await a.registry.getSingleMetricAsString(
      'memberlist_client_received_broadcasts_invalid_total',
    );
    expect(invalid).toContain('memberlist_client_received_broadcasts_invalid_total 1');
    expect(a.kv.status().keys).toEqual([]);
  });

  it('rejects malformed packets with invalid_argument', async () => {
    cluster = new TestCluster();
    await cluster.add('a');
    const b = await cluster.add('b');
    await expect(
      b.transport.call('a', {
        method: 'memberlist.Packet',
        body: enc.encode('{"kind":"gossip","from":"b","messages":[{"type":"alive"}]}'),
        contentType: 'application/json',
      }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
