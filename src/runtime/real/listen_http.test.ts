import * as http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listenHttp, type HttpListener } from './listen_http.js';

const agent = new http.Agent({ keepAlive: true });
afterEach(() => agent.destroy());

function get(
  port: number,
  path = '/',
  viaAgent: http.Agent | false = agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = http.get({ host: '127.0.0.1', port, path, agent: viaAgent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    r.on('error', reject);
  });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('listenHttp', () => {
  const listeners: HttpListener[] = [];
  afterEach(async () => {
    for (const l of listeners.splice(0)) await l.close(0);
  });

  it('serves the handler on a free port and reports the address', async () => {
    const l = await listenHttp((req, res) => res.end(`hello ${req.url}`), {
      host: '127.0.0.1',
      port: 0,
    });
    listeners.push(l);
    expect(l.port).toBeGreaterThan(0);
    expect(l.address).toBe(`127.0.0.1:${l.port}`);
    expect(await get(l.port, '/ready')).toEqual({ status: 200, body: 'hello /ready' });
  });

  it('lets a request in flight finish within the grace period, then refuses new connections', async () => {
    const arrived = deferred();
    const release = deferred();
    const l = await listenHttp(
      (_req, res) => {
        arrived.resolve();
        void release.promise.then(() => res.end('done'));
      },
      { host: '127.0.0.1', port: 0 },
    );
    const response = get(l.port);
    await arrived.promise;
    const closed = l.close(30_000);
    release.resolve();
    expect(await response).toEqual({ status: 200, body: 'done' });
    await closed;
    await expect(get(l.port, '/', false)).rejects.toThrow(/ECONNREFUSED/);
  }, 10_000);

  it('destroys connections still busy when the grace period ends', async () => {
    const arrived = deferred();
    const l = await listenHttp(
      () => {
        arrived.resolve(); // never responds
      },
      { host: '127.0.0.1', port: 0 },
    );
    const response = get(l.port);
    await arrived.promise;
    await l.close(50);
    await expect(response).rejects.toThrow(/socket hang up|ECONNRESET/);
  }, 10_000);

  it('does not wait for idle keep-alive connections', async () => {
    const l = await listenHttp((_req, res) => res.end('ok'), { host: '127.0.0.1', port: 0 });
    expect((await get(l.port)).body).toBe('ok');
    expect((await get(l.port)).body).toBe('ok');
    await l.close(60_000); // would hang past the test timeout if idle sockets held it open
  }, 10_000);

  it('rejects a port already in use with an error naming the address', async () => {
    const l = await listenHttp((_req, res) => res.end(), { host: '127.0.0.1', port: 0 });
    listeners.push(l);
    await expect(
      listenHttp((_req, res) => res.end(), { host: '127.0.0.1', port: l.port }),
    ).rejects.toThrow(`127.0.0.1:${l.port}`);
  });
});
