// The in-process adapter: wire requests become the bucket stores' queries (matchers rebuilt,
// skipChunks and the label name kept) and the caller's signal reaches them.
import { describe, expect, it } from 'vitest';
import { toWireMatchers } from '../ingester/index.js';
import { Matcher } from '../model/index.js';
import { emptyBlockQueryStats } from '../storegateway/index.js';
import { inProcessBlocksStoreClient, type InProcessBlocksStore } from './blocks_store_client.js';

describe('inProcessBlocksStoreClient', () => {
  it('passes requests and the signal to the bucket stores', async () => {
    const seen: unknown[] = [];
    const stores: InProcessBlocksStore = {
      series: (tenant, q, signal) => {
        seen.push({ tenant, q, signal });
        return Promise.resolve({
          series: [],
          queriedBlocks: [...q.blockIds],
          stats: emptyBlockQueryStats(),
        });
      },
      labelNames: (tenant, q, signal) => {
        seen.push({ tenant, q, signal });
        return Promise.resolve({ values: ['job'], queriedBlocks: [...q.blockIds] });
      },
      labelValues: (tenant, q, signal) => {
        seen.push({ tenant, q, signal });
        return Promise.resolve({ values: ['api'], queriedBlocks: [...q.blockIds] });
      },
    };
    const client = inProcessBlocksStoreClient(stores);
    const signal = new AbortController().signal;
    const matchers = toWireMatchers([Matcher.equal('job', 'api')]);
    const res = await client.series(
      'any',
      't',
      { start: 1, end: 2, matchers, blockIds: ['B'], skipChunks: true },
      { signal },
    );
    expect(res.queriedBlocks).toEqual(['B']);
    const call = seen[0] as {
      tenant: string;
      q: { matchers: Matcher[]; skipChunks?: boolean };
      signal: AbortSignal;
    };
    expect(call.tenant).toBe('t');
    expect(call.signal).toBe(signal);
    expect(call.q.skipChunks).toBe(true);
    expect(call.q.matchers[0]?.matches('api')).toBe(true);
    expect(call.q.matchers[0]?.name).toBe('job');
    expect(
      (await client.labelNames('any', 't', { start: 1, end: 2, matchers, blockIds: [] })).values,
    ).toEqual(['job']);
    const values = await client.labelValues('any', 't', {
      start: 1,
      end: 2,
      matchers,
      blockIds: [],
      name: 'job',
    });
    expect(values.values).toEqual(['api']);
    expect((seen[2] as { q: { name: string } }).q.name).toBe('job');
  });
});
