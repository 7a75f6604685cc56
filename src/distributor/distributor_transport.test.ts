// The distributor calling ingesters over the real Transport interface (in-process
// MemoryTransports) through TransportIngesterClient: what the ingester's RpcErrors turn into.
import { describe, expect, it } from 'vitest';
import { INGESTER_PUSH, TENANT_RPC_HEADER, TransportIngesterClient } from '../ingester/index.js';
import { MemoryNetwork, RpcError, jsonBody } from '../runtime/index.js';
import { HttpError } from '../server/index.js';
import { makeFixture } from './distributor_fixture.testing.js';
import { buildWriteRequest } from './write_request_build.js';
import { decodeWriteRequest } from './write_request_decode.js';

const ADDRS = ['a:9095', 'b:9095', 'c:9095'];

async function cluster() {
  const network = new MemoryNetwork();
  const received = new Map<string, string[]>();
  const refusals = new Map<string, RpcError>();
  for (const addr of ADDRS) {
    const t = network.transport(addr);
    t.handle(INGESTER_PUSH, (req) => {
      const refusal = refusals.get(addr);
      if (refusal !== undefined) return Promise.reject(refusal);
      const write = decodeWriteRequest(req.body);
      const names = received.get(addr) ?? [];
      for (const s of write.series)
        names.push(`${req.headers?.[TENANT_RPC_HEADER]}/${s.labels[1]}`);
      received.set(addr, names);
      return Promise.resolve(jsonBody({}));
    });
    await t.listen();
  }
  const f = makeFixture({ client: new TransportIngesterClient(network.transport('dist-client')) });
  return { f, network, received, refusals };
}

const push = (name: string) =>
  buildWriteRequest({
    series: [{ labels: [['__name__', name]], samples: [{ value: 1, timestamp: 1.7e12 }] }],
  });

async function answer(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return '200';
  } catch (e) {
    if (e instanceof HttpError) return `${e.status} ${e.message}`;
    throw e;
  }
}

describe('Distributor over the Transport', () => {
  it('replicates to every ingester of the set, with the tenant header', async () => {
    const { f, received } = await cluster();
    expect(await answer(f.distributor.push('t1', push('up'), 'api'))).toBe('200');
    for (const addr of ADDRS) expect(received.get(addr)).toEqual(['t1/up']);
  });

  it('one disconnected ingester: 200; two: 500 naming an unreachable ingester', async () => {
    const { f, network, received } = await cluster();
    network.disconnect('a:9095');
    expect(await answer(f.distributor.push('t1', push('up'), 'api'))).toBe('200');
    expect(received.get('a:9095')).toBeUndefined();
    network.disconnect('b:9095');
    expect(await answer(f.distributor.push('t1', push('up'), 'api'))).toMatch(
      /^500 failed pushing to ingester [ab]:9095 \(unavailable\): no peer listening at [ab]:9095$/,
    );
  });

  it("an ingester's invalid_argument refusal on every replica is a 400 with its text", async () => {
    const { f, refusals } = await cluster();
    for (const addr of ADDRS)
      refusals.set(addr, new RpcError('invalid_argument', 'sample timestamp out of bounds'));
    expect(await answer(f.distributor.push('t1', push('up'), 'api'))).toBe(
      '400 sample timestamp out of bounds',
    );
  });
});
