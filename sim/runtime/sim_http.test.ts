import { describe, expect, it } from 'vitest';
import {
  BadDataError,
  HttpServer,
  TooManyRequestsError,
  tenantOf,
  writeBody,
  writeText,
} from '../../src/server/index.js';
import type { SimProcess } from '../cluster/index.js';
import { createTestWorld } from '../testing/index.js';
import { SimHttpError, type SimHttpResponse } from './sim_http.js';
import type { SimNodeEnv } from './sim_env.js';
import type { SimRuntimeConfig } from './sim_services.js';

const text = (r: SimHttpResponse): string => new TextDecoder().decode(r.body);

/**
 * A process serving a real HttpServer (express app, tenant middleware, error table) through
 * the simulated HTTP listener: `/echo` reads the body with `for await`, `/refuse/:status`
 * throws coded errors, `/slow` answers after 60s virtual and records whether it saw its
 * client go away, `/broken` throws an uncoded error after sending headers.
 */
function serverProcess(env: SimNodeEnv, seen: string[]): SimProcess {
  const server = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock: env.clock, logger: env.logger, metrics: env.metrics },
  );
  server.registerRoute({
    methods: ['POST'],
    path: '/echo',
    module: 'test',
    description: 'echo',
    tenant: true,
    handler: async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
      seen.push(
        `echo ${tenantOf(res)} ${req.get('content-encoding') ?? '-'} ${req.query['q'] as string}`,
      );
      writeBody(res, 200, 'application/octet-stream', Buffer.concat(chunks));
    },
  });
  server.registerRoute({
    methods: ['GET'],
    path: '/refuse/:status',
    module: 'test',
    description: 'refuse',
    tenant: false,
    handler: (req) => {
      if (req.params['status'] === '429') throw new TooManyRequestsError('slow down');
      throw new BadDataError(`bad value ${String(req.params['status'])}`);
    },
  });
  server.registerRoute({
    methods: ['GET'],
    path: '/slow',
    module: 'test',
    description: 'slow',
    tenant: false,
    handler: async (_req, res) => {
      res.once('close', () => seen.push(`slow closed ended=${String(res.writableEnded)}`));
      await env.clock.sleep(60_000);
      writeText(res, 200, 'late');
    },
  });
  let listener: { close(graceMs: number): Promise<void> } | undefined;
  return {
    async start() {
      listener = await env.http.listen(server.handler);
    },
    async stop() {
      await listener?.close(1_000);
    },
  };
}

interface Result {
  status?: number;
  body?: string;
  headers?: Readonly<Record<string, string>>;
  failure?: string;
  at: number;
}

async function world(configure?: (config: SimRuntimeConfig) => void) {
  const w = createTestWorld({ seed: 'http', ...(configure === undefined ? {} : { configure }) });
  const seen: string[] = [];
  w.cluster.addNode('server', (env) => serverProcess(env, seen));
  w.cluster.addNode('client', () => ({
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  }));
  w.kernel.after(0, { kind: 'boot' }, () =>
    ['server', 'client'].forEach((n) => w.cluster.start(n)),
  );
  await w.kernel.run();
  const request = (
    method: string,
    path: string,
    opts: { headers?: Record<string, string>; body?: string; timeoutMs?: number; to?: string } = {},
  ): Result[] => {
    const out: Result[] = [];
    w.kernel.after(0, { kind: 'test.request' }, () => {
      const start = w.kernel.now();
      w.cluster
        .node('client')
        .env!.http.request(
          opts.to ?? 'server',
          {
            method,
            path,
            ...(opts.headers === undefined ? {} : { headers: opts.headers }),
            ...(opts.body === undefined ? {} : { body: new TextEncoder().encode(opts.body) }),
          },
          opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs },
        )
        .then(
          (r) =>
            out.push({
              status: r.status,
              body: text(r),
              headers: r.headers,
              at: w.kernel.now() - start,
            }),
          (err: unknown) =>
            out.push({
              failure: err instanceof SimHttpError ? err.kind : String(err),
              at: w.kernel.now() - start,
            }),
        );
    });
    return out;
  };
  return { ...w, seen, request };
}

describe('simulated HTTP', () => {
  it('drives the real express app: body, headers, query, tenant', async () => {
    const w = await world();
    const out = w.request('POST', '/echo?q=1', {
      headers: { 'X-Scope-OrgID': 'team-a', 'Content-Encoding': 'snappy' },
      body: 'payload',
    });
    await w.kernel.run();
    expect(out).toEqual([expect.objectContaining({ status: 200, body: 'payload' }) as Result]);
    expect(out[0]!.headers!['content-type']).toBe('application/octet-stream');
    expect(w.seen).toEqual(['echo team-a snappy 1']);
    expect(w.kernel.errors).toEqual([]);
  });

  it('answers through the error table: 401 without a tenant, 400, 429, 404, 405', async () => {
    const w = await world();
    const noTenant = w.request('POST', '/echo', { body: 'x' });
    const bad = w.request('GET', '/refuse/400');
    const limited = w.request('GET', '/refuse/429');
    const missing = w.request('GET', '/nowhere');
    const wrongMethod = w.request('DELETE', '/slow');
    await w.kernel.run();
    expect(noTenant[0]).toMatchObject({ status: 401 });
    expect(noTenant[0]!.body).toMatch(/^no org id/);
    expect(bad[0]).toMatchObject({ status: 400, body: 'bad value 400\n' });
    expect(limited[0]).toMatchObject({ status: 429, body: 'slow down\n' });
    expect(missing[0]).toMatchObject({ status: 404 });
    expect(missing[0]!.body).toContain('/nowhere');
    expect(wrongMethod[0]).toMatchObject({ status: 405 });
    expect(w.kernel.errors).toEqual([]);
  });

  it('fails unreachable when nothing listens, and after the server crashed', async () => {
    const w = await world();
    const nowhere = w.request('GET', '/slow', { to: 'client' });
    await w.kernel.run();
    w.kernel.after(0, { kind: 'crash' }, () => w.cluster.crash('server'));
    await w.kernel.run();
    const afterCrash = w.request('GET', '/refuse/400');
    await w.kernel.run();
    expect(nowhere[0]).toMatchObject({ failure: 'unreachable' });
    expect(afterCrash[0]).toMatchObject({ failure: 'unreachable' });
  });

  it('times out on virtual time and tells the server its client went away', async () => {
    const w = await world();
    const out = w.request('GET', '/slow', { timeoutMs: 2_000 });
    await w.kernel.run();
    expect(out[0]).toEqual({ failure: 'timeout', at: 2_000 });
    expect(w.seen).toEqual(['slow closed ended=false']);
  });

  it('a request in flight when the server crashes times out', async () => {
    const w = await world();
    const out = w.request('GET', '/slow', { timeoutMs: 5_000 });
    w.kernel.after(1_000, { kind: 'crash' }, () => w.cluster.crash('server'));
    w.kernel.after(2_000, { kind: 'restart' }, () => w.cluster.start('server'));
    await w.kernel.run();
    expect(out[0]).toMatchObject({ failure: 'timeout' });
  });

  it('partitions cut HTTP like any message', async () => {
    const w = await world();
    w.kernel.after(0, { kind: 'cut' }, () =>
      w.services.network.partitionOneWay('server', 'client'),
    );
    const out = w.request('GET', '/refuse/400', { timeoutMs: 3_000 });
    await w.kernel.run();
    expect(out[0]).toEqual({ failure: 'timeout', at: 3_000 });
  });

  it('a duplicated request is served twice; the client keeps one answer', async () => {
    const w = await world((c) => {
      c.network.duplication = 1;
    });
    const out = w.request('POST', '/echo?q=d', { headers: { 'X-Scope-OrgID': 't' }, body: 'b' });
    await w.kernel.run();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ status: 200, body: 'b' });
    expect(w.seen).toEqual(['echo t - d', 'echo t - d']);
  });

  it('a graceful stop lets requests in flight finish within the grace period, then resets them', async () => {
    const w = await world();
    const out = w.request('GET', '/slow', { timeoutMs: 120_000 });
    w.kernel.after(100, { kind: 'stop' }, () => void w.cluster.stop('server'));
    await w.kernel.run();
    expect(out[0]).toMatchObject({ failure: 'reset' });
    expect(out[0]!.at).toBeLessThan(2_000);
  });

  it('replays identically', async () => {
    const run = async (): Promise<string> => {
      const w = await world((c) => {
        c.network.duplication = 0.3;
        c.network.loss = 0.2;
      });
      for (let i = 0; i < 20; i++) {
        w.request('POST', `/echo?q=${i}`, { headers: { 'X-Scope-OrgID': 't' }, body: `${i}` });
        w.request('GET', '/refuse/400', { timeoutMs: 1_000 });
      }
      await w.kernel.run();
      return w.kernel.traceHash();
    };
    expect(await run()).toBe(await run());
  });
});
