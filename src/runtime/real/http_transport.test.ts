import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcError, type RpcCode, type RpcRequest } from '../transport.js';
import { CapturingLogger } from '../testing/index.js';
import { HttpTransport } from './http_transport.js';
import { RPC_STATUS } from './rpc_wire.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

const open: HttpTransport[] = [];
function transport(maxBodyBytes?: number): HttpTransport {
  const t = new HttpTransport(
    { host: '127.0.0.1', port: 0, ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }) },
    { logger: new CapturingLogger() },
  );
  open.push(t);
  return t;
}
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

function req(method: string, body = 'ping', headers?: Record<string, string>): RpcRequest {
  return {
    method,
    body: enc.encode(body),
    contentType: 'application/json',
    ...(headers ? { headers } : {}),
  };
}

async function rpcErrorOf(p: Promise<unknown>): Promise<RpcError> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(err)}`);
  return err;
}

/** A promise and its resolver, to sequence the two sides of a call without timers. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('HttpTransport', () => {
  it('listens on a free port and reports host:port', async () => {
    const server = transport();
    expect(server.address).toBeUndefined();
    const address = await server.listen();
    expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(address).not.toBe('127.0.0.1:0');
    expect(server.address).toBe(address);
  });

  it('advertises a dialable host when it listens on every interface', async () => {
    const any = new HttpTransport(
      { host: '0.0.0.0', port: 0, advertiseHost: 'localhost' },
      { logger: new CapturingLogger() },
    );
    open.push(any);
    const address = await any.listen();
    expect(address).toMatch(/^localhost:\d+$/);
    any.handle('echo', (r) => Promise.resolve(r));
    // Another process dials it by that address.
    const res = await transport().call(address, req('echo', 'hi'));
    expect(dec.decode(res.body)).toBe('hi');
  });

  it('round-trips body, content type and request headers', async () => {
    const server = transport();
    const seen: RpcRequest[] = [];
    server.handle('ingester.Push', (r) => {
      seen.push(r);
      return Promise.resolve({
        body: r.body.slice().reverse(),
        contentType: 'application/x-protobuf',
      });
    });
    const address = await server.listen();
    const client = transport();
    const body = new Uint8Array([0, 1, 2, 255]);
    const res = await client.call(address, {
      method: 'ingester.Push',
      body,
      contentType: 'application/x-protobuf',
      headers: { 'x-scope-orgid': 'tenant-1', 'x-request-id': 'abc' },
    });
    expect(res.body).toEqual(new Uint8Array([255, 2, 1, 0]));
    expect(res.contentType).toBe('application/x-protobuf');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe('ingester.Push');
    expect(seen[0]?.body).toEqual(body);
    expect(seen[0]?.contentType).toBe('application/x-protobuf');
    expect(seen[0]?.headers).toEqual({ 'x-scope-orgid': 'tenant-1', 'x-request-id': 'abc' });
  });

  it('carries empty bodies and many sequential calls over reused connections', async () => {
    const server = transport();
    server.handle('echo', (r) => Promise.resolve({ body: r.body, contentType: r.contentType }));
    const address = await server.listen();
    const client = transport();
    expect((await client.call(address, req('echo', ''))).body.length).toBe(0);
    for (let i = 0; i < 50; i++) {
      expect(dec.decode((await client.call(address, req('echo', `m${i}`))).body)).toBe(`m${i}`);
    }
  });

  it('maps every handler RpcError code and message back to the caller', async () => {
    const server = transport();
    server.handle('fail', (r) => {
      const [code, message] = JSON.parse(dec.decode(r.body)) as [RpcCode, string];
      return Promise.reject(new RpcError(code, message));
    });
    const address = await server.listen();
    const client = transport();
    for (const code of Object.keys(RPC_STATUS) as RpcCode[]) {
      const err = await rpcErrorOf(
        client.call(address, req('fail', JSON.stringify([code, `because ${code}`]))),
      );
      expect(err.code).toBe(code);
      expect(err.message).toBe(`because ${code}`);
    }
  });

  it("turns any other handler error into 'internal' and logs it", async () => {
    const logger = new CapturingLogger();
    const server = new HttpTransport({ host: '127.0.0.1', port: 0 }, { logger });
    open.push(server);
    server.handle('boom', () => Promise.reject(new TypeError('x is undefined')));
    const address = await server.listen();
    const err = await rpcErrorOf(transport().call(address, req('boom')));
    expect(err.code).toBe('internal');
    expect(err.message).toContain('x is undefined');
    expect(logger.lines.some((l) => l.level === 'error' && l.fields['method'] === 'boom')).toBe(
      true,
    );
  });

  it("answers an unknown method with 'unimplemented' naming it", async () => {
    const server = transport();
    const address = await server.listen();
    const err = await rpcErrorOf(transport().call(address, req('querier.Nope')));
    expect(err.code).toBe('unimplemented');
    expect(err.message).toContain('querier.Nope');
  });

  it("fails with 'unavailable' when nothing listens at the address", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((r) => probe.close(() => r()));
    const err = await rpcErrorOf(transport().call(`127.0.0.1:${port}`, req('x')));
    expect(err.code).toBe('unavailable');
    expect(err.message).toContain(`127.0.0.1:${port}`);
  });

  it("fails with 'deadline_exceeded' after timeoutMs and aborts the handler's signal", async () => {
    const server = transport();
    const handlerAborted = deferred();
    server.handle('slow', (_r, signal) => {
      signal.addEventListener('abort', () => handlerAborted.resolve());
      return new Promise(() => undefined); // never answers
    });
    const address = await server.listen();
    const err = await rpcErrorOf(transport().call(address, req('slow'), { timeoutMs: 50 }));
    expect(err.code).toBe('deadline_exceeded');
    expect(err.message).toContain('50ms');
    await handlerAborted.promise; // the server noticed the caller left
  });

  it("fails with 'aborted' when the caller's signal aborts, and aborts the handler's signal", async () => {
    const server = transport();
    const started = deferred();
    const handlerAborted = deferred();
    server.handle('slow', (_r, signal) => {
      signal.addEventListener('abort', () => handlerAborted.resolve());
      started.resolve();
      return new Promise(() => undefined);
    });
    const address = await server.listen();
    const ac = new AbortController();
    const call = transport().call(address, req('slow'), { signal: ac.signal });
    await started.promise;
    ac.abort();
    expect((await rpcErrorOf(call)).code).toBe('aborted');
    await handlerAborted.promise;

    const already = new AbortController();
    already.abort();
    expect(
      (await rpcErrorOf(transport().call(address, req('slow'), { signal: already.signal }))).code,
    ).toBe('aborted');
  });

  it('serves calls to its own address in process with the same outcomes', async () => {
    const self = transport();
    const seen: RpcRequest[] = [];
    self.handle('echo', (r) => {
      seen.push(r);
      return Promise.resolve({ body: r.body, contentType: 'text/plain' });
    });
    self.handle('refuse', () => Promise.reject(new RpcError('invalid_argument', 'bad sample')));
    self.handle('crash', () => Promise.reject(new Error('kaput')));
    const handlerAborted = deferred();
    self.handle('slow', (_r, signal) => {
      signal.addEventListener('abort', () => handlerAborted.resolve());
      return new Promise(() => undefined);
    });
    const address = await self.listen();
    const res = await self.call(address, req('echo', 'hello', { 'X-Scope-OrgID': 'team-a' }));
    expect(dec.decode(res.body)).toBe('hello');
    expect(res.contentType).toBe('text/plain');
    expect(seen[0]?.headers).toEqual({ 'x-scope-orgid': 'team-a' });
    expect(await rpcErrorOf(self.call(address, req('refuse')))).toMatchObject({
      code: 'invalid_argument',
      message: 'bad sample',
    });
    expect(await rpcErrorOf(self.call(address, req('crash')))).toMatchObject({
      code: 'internal',
      message: 'rpc crash: kaput',
    });
    expect((await rpcErrorOf(self.call(address, req('nope')))).code).toBe('unimplemented');
    const late = await rpcErrorOf(self.call(address, req('slow'), { timeoutMs: 20 }));
    expect(late.code).toBe('deadline_exceeded');
    await handlerAborted.promise;
    expect(
      (await rpcErrorOf(self.call(address, req('echo', 'x', { 'Content-Length': '1' })))).code,
    ).toBe('invalid_argument');
  });

  it('on close aborts handlers in flight and calls in flight, and stops accepting', async () => {
    const server = transport();
    const started = deferred();
    const handlerAborted = deferred();
    server.handle('slow', (_r, signal) => {
      signal.addEventListener('abort', () => handlerAborted.resolve());
      started.resolve();
      return new Promise(() => undefined);
    });
    const address = await server.listen();
    const client = transport();
    const call = client.call(address, req('slow'));
    await started.promise;
    await server.close();
    await handlerAborted.promise;
    expect(['unavailable', 'aborted']).toContain((await rpcErrorOf(call)).code);
    expect((await rpcErrorOf(client.call(address, req('slow')))).code).toBe('unavailable');

    // Closing the client side aborts its own calls in flight.
    const other = transport();
    const otherStarted = deferred();
    other.handle('slow', () => {
      otherStarted.resolve();
      return new Promise(() => undefined);
    });
    const otherAddress = await other.listen();
    const pending = client.call(otherAddress, req('slow'));
    await otherStarted.promise;
    await client.close();
    expect((await rpcErrorOf(pending)).code).toBe('aborted');
    expect((await rpcErrorOf(client.call(otherAddress, req('slow')))).code).toBe('unavailable');
  });

  it('refuses a second handler for the same method', () => {
    const server = transport();
    server.handle('m', () =>
      Promise.resolve({ body: new Uint8Array(), contentType: 'application/json' }),
    );
    expect(() => server.handle('m', () => Promise.reject(new Error('x')))).toThrow(/"m"/);
  });

  it("rejects headers reserved by HTTP and malformed addresses with 'invalid_argument'", async () => {
    const server = transport();
    const address = await server.listen();
    const client = transport();
    const err = await rpcErrorOf(client.call(address, req('m', 'x', { 'content-length': '1' })));
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain('content-length');
    const bad = await rpcErrorOf(client.call('no-port', req('m')));
    expect(bad.code).toBe('invalid_argument');
    expect(bad.message).toContain('no-port');
  });

  it("refuses bodies over the limit with 'resource_exhausted'", async () => {
    const server = transport(1024);
    server.handle('big', () =>
      Promise.resolve({ body: new Uint8Array(10), contentType: 'application/json' }),
    );
    const address = await server.listen();
    const err = await rpcErrorOf(
      transport().call(address, { ...req('big'), body: new Uint8Array(4096) }),
    );
    expect(err.code).toBe('resource_exhausted');
    expect(err.message).toContain('1024');
  });
});
