import { describe, expect, it } from 'vitest';
import { newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { HttpError } from './errors.js';
import { HttpServer, tenantOf, writeText } from './http_server.js';
import { dispatchInProcess } from './in_process.js';

const BYTES = new Uint8Array([1, 2, 3, 4, 5]);

function server(): HttpServer {
  const s = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock: new ManualClock(1_000), logger: new CapturingLogger(), metrics: newMetricsRegistry() },
  );
  s.registerRoute({
    methods: ['GET', 'POST'],
    path: '/echo',
    module: 'test',
    description: 'echoes',
    tenant: true,
    handler: async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
      writeText(
        res,
        200,
        `${tenantOf(res)} ${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`,
      );
    },
  });
  s.registerRoute({
    methods: ['GET'],
    path: '/bad',
    module: 'test',
    description: 'fails',
    tenant: true,
    handler: () => {
      throw new HttpError('bad_data', 'bad value "x"');
    },
  });
  s.registerRoute({
    methods: ['GET'],
    path: '/bytes',
    module: 'test',
    description: 'answers BYTES in one piece, then in two',
    tenant: false,
    handler: (req, res) => {
      if (req.query['parts'] === undefined) res.end(BYTES);
      else {
        res.write(BYTES.subarray(0, 2));
        res.end(BYTES.subarray(2));
      }
    },
  });
  s.registerRoute({
    methods: ['GET'],
    path: '/never',
    module: 'test',
    description: 'never answers',
    tenant: false,
    handler: () => new Promise<void>(() => undefined),
  });
  return s;
}

const init = (
  url: string,
  extra: Partial<{ method: string; body: string; headers: Record<string, string> }> = {},
) => ({
  method: extra.method ?? 'GET',
  url,
  headers: { 'x-scope-orgid': 'team-a', ...(extra.headers ?? {}) },
  body: new TextEncoder().encode(extra.body ?? ''),
  remoteAddress: 'frontend',
});

describe('dispatchInProcess', () => {
  it('runs a request through the routes, tenant resolution and body reading', async () => {
    const answer = await dispatchInProcess(
      server().handler,
      init('/echo?x=1', {
        method: 'POST',
        body: 'query=up',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(answer.status).toBe(200);
    expect(new TextDecoder().decode(answer.body)).toBe('team-a POST /echo?x=1 query=up\n');
  });

  it('hands a body written in one piece on as it is, and joins one written in pieces', async () => {
    const whole = await dispatchInProcess(server().handler, init('/bytes'));
    expect(whole.body).toEqual(BYTES);
    expect(whole.body.buffer).toBe(BYTES.buffer);
    const parts = await dispatchInProcess(server().handler, init('/bytes?parts=1'));
    expect(parts.body).toEqual(BYTES);
    expect(parts.body.buffer).not.toBe(BYTES.buffer);
  });

  it("answers errors through the server's error table and unknown paths with 404", async () => {
    const bad = await dispatchInProcess(server().handler, init('/bad'));
    expect(bad.status).toBe(400);
    expect(new TextDecoder().decode(bad.body)).toContain('bad value "x"');
    const missing = await dispatchInProcess(server().handler, init('/nope'));
    expect(missing.status).toBe(404);
    const noTenant = await dispatchInProcess(server().handler, { ...init('/echo'), headers: {} });
    expect(noTenant.status).toBe(401);
  });

  it('rejects when the caller aborts a request the handler has not answered', async () => {
    const abort = new AbortController();
    const pending = dispatchInProcess(server().handler, init('/never'), abort.signal);
    abort.abort(new Error('frontend gave up'));
    await expect(pending).rejects.toThrow('frontend gave up');
  });
});
