import { uncompress } from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { decodeWriteRequest, toPlainWriteRequest } from '../../../src/distributor/index.js';
import { createTestWorld } from '../../testing/index.js';
import type { AttemptOutcome } from './ledger.js';
import { WriteLedger } from './ledger.js';
import { encodeBatch, parseMatrix, pushBatch, queryApi } from './http_client.js';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * A node whose HTTP listener answers with `answer(seen)` (a bare node listener, no express):
 * it records what the client sent.
 */
async function world(answer: (s: Seen) => { status: number; body: string }) {
  const w = createTestWorld({ seed: 'http-client' });
  const seen: Seen[] = [];
  w.cluster.addNode('server', (env) => ({
    async start() {
      await env.http.listen(((
        req: AsyncIterable<Buffer> & {
          method: string;
          url: string;
          headers: Record<string, string>;
        },
        res: { statusCode: number; end(b: string): void },
      ) => {
        void (async () => {
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c);
          const s = {
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: new Uint8Array(Buffer.concat(chunks)),
          };
          seen.push(s);
          const a = answer(s);
          res.statusCode = a.status;
          res.end(a.body);
        })();
      }) as never);
    },
    stop: () => Promise.resolve(),
  }));
  w.cluster.addNode('client', () => ({
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  }));
  w.kernel.after(0, { kind: 'boot' }, () =>
    ['server', 'client'].forEach((n) => w.cluster.start(n)),
  );
  await w.kernel.run();
  return { ...w, seen, http: () => w.cluster.node('client').env!.http };
}

const samples = () => {
  const ledger = new WriteLedger();
  return ledger.scraped(
    'w',
    't',
    [
      { series: 'A', labels: [['__name__', 'm']], timestamp: 1_000, value: 1 },
      { series: 'A', labels: [['__name__', 'm']], timestamp: 2_000, value: 2 },
    ],
    0,
  );
};

describe('pushBatch', () => {
  it('POSTs a snappy-compressed remote-write 1.0 body with the Prometheus headers', async () => {
    const w = await world(() => ({ status: 200, body: '' }));
    const out: AttemptOutcome[] = [];
    w.kernel.after(0, { kind: 'push' }, () => {
      void pushBatch(w.http(), 'server', encodeBatch(samples(), [['cluster', 'c1']]), {
        tenant: 'team-a',
        timeoutMs: 1_000,
      }).then((o) => out.push(o));
    });
    await w.kernel.run();
    expect(out).toEqual([{ kind: 'ok', status: 200 }]);
    const s = w.seen[0]!;
    expect(s.method).toBe('POST');
    expect(s.url).toBe('/api/v1/push');
    expect(s.headers).toMatchObject({
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
      'x-scope-orgid': 'team-a',
      'content-length': String(s.body.length),
    });
    const plain = toPlainWriteRequest(decodeWriteRequest(uncompress(s.body)));
    expect(plain.series.map((x) => [x.labels, x.samples?.length])).toEqual([
      [
        [
          ['__name__', 'm'],
          ['cluster', 'c1'],
        ],
        2,
      ],
    ]);
  });

  it('classifies answers and failures for the ledger', async () => {
    const statuses = [202, 400, 429, 503];
    const w = await world((s) => {
      const status = statuses[Number(s.headers['x-scope-orgid'])]!;
      return { status, body: `answer ${status}\n` };
    });
    const out: AttemptOutcome[] = [];
    w.kernel.after(0, { kind: 'push' }, () => {
      for (const [i] of statuses.entries())
        void pushBatch(w.http(), 'server', encodeBatch(samples()), {
          tenant: String(i),
          timeoutMs: 1_000,
        }).then((o) => (out[i] = o));
      void pushBatch(w.http(), 'nowhere', encodeBatch(samples()), {
        tenant: 't',
        timeoutMs: 1_000,
      }).then((o) => (out[4] = o));
    });
    await w.kernel.run();
    expect(out).toEqual([
      { kind: 'ok', status: 202 },
      { kind: 'rejected', code: '400', message: 'answer 400' },
      { kind: 'unknown', code: '429', message: 'answer 429' },
      { kind: 'unknown', code: '503', message: 'answer 503' },
      expect.objectContaining({ kind: 'unknown', code: 'unreachable' }) as AttemptOutcome,
    ]);
  });
});

describe('queryApi and parseMatrix', () => {
  it('GETs the Prometheus API with the tenant and reads a matrix of raw samples', async () => {
    const matrix = {
      resultType: 'matrix',
      result: [
        {
          metric: { __name__: 'm', slot: '1' },
          values: [
            [1767225600.5, '1'],
            [1767225601.25, '12'],
          ],
        },
      ],
    };
    const w = await world((s) =>
      s.url.includes('bad')
        ? {
            status: 400,
            body: JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }),
          }
        : { status: 200, body: JSON.stringify({ status: 'success', data: matrix }) },
    );
    const out: unknown[] = [];
    w.kernel.after(0, { kind: 'query' }, () => {
      const opts = { tenant: 'team-b', timeoutMs: 1_000 };
      void queryApi(w.http(), 'server', 'query', [['query', '{a="b"}[1m]']], opts).then((d) =>
        out.push(parseMatrix(d)),
      );
      void queryApi(w.http(), 'server', 'query', [['query', 'bad']], opts).catch((e: Error) =>
        out.push(e.message),
      );
    });
    await w.kernel.run();
    expect(w.seen.map((s) => s.url).sort()).toEqual([
      '/prometheus/api/v1/query?query=%7Ba%3D%22b%22%7D%5B1m%5D',
      '/prometheus/api/v1/query?query=bad',
    ]);
    expect(w.seen.map((s) => s.headers['x-scope-orgid'])).toEqual(['team-b', 'team-b']);
    expect(out).toContainEqual([
      {
        labels: [
          ['__name__', 'm'],
          ['slot', '1'],
        ],
        timestamps: [1767225600500, 1767225601250],
        values: [1, 12],
      },
    ]);
    expect(out).toContain('HTTP 400 bad_data: parse error');
  });
});
