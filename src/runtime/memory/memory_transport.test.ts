import { describe, expect, it } from 'vitest';
import { RpcError, jsonBody, parseJsonBody } from '../transport.js';
import { MemoryNetwork } from './memory_transport.js';

describe('MemoryTransport', () => {
  it('delivers calls to the named peer and maps failures to RpcErrors', async () => {
    const net = new MemoryNetwork();
    const a = net.transport('a');
    const b = net.transport('b');
    b.handle('echo', (req) => Promise.resolve(req));
    b.handle('boom', () => Promise.reject(new Error('kaput')));
    b.handle('refuse', () => Promise.reject(new RpcError('invalid_argument', 'bad input')));
    expect(a.address).toBeUndefined();
    expect(await b.listen()).toBe('b');
    const res = await a.call('b', { method: 'echo', ...jsonBody({ x: 1 }) });
    expect(parseJsonBody(res)).toEqual({ x: 1 });
    await expect(a.call('b', { method: 'boom', ...jsonBody({}) })).rejects.toMatchObject({
      code: 'internal',
      message: 'kaput',
    });
    await expect(a.call('b', { method: 'refuse', ...jsonBody({}) })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(a.call('b', { method: 'nope', ...jsonBody({}) })).rejects.toMatchObject({
      code: 'unimplemented',
    });
    await expect(a.call('c', { method: 'echo', ...jsonBody({}) })).rejects.toMatchObject({
      code: 'unavailable',
    });
  });

  it('disconnected or closed peers are unavailable', async () => {
    const net = new MemoryNetwork();
    const a = net.transport('a');
    const b = net.transport('b');
    b.handle('echo', (req) => Promise.resolve(req));
    await b.listen();
    net.disconnect('b');
    await expect(a.call('b', { method: 'echo', ...jsonBody({}) })).rejects.toMatchObject({
      code: 'unavailable',
    });
    net.reconnect('b');
    await a.call('b', { method: 'echo', ...jsonBody({}) });
    await b.close();
    await expect(a.call('b', { method: 'echo', ...jsonBody({}) })).rejects.toMatchObject({
      code: 'unavailable',
    });
    expect(() => b.handle('echo', (req) => Promise.resolve(req))).toThrow(/already registered/);
  });
});
