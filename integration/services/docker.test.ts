import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dockerEngineReachable, dockerSocketPath } from './docker.js';

describe('dockerEngineReachable', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  async function serveOn(status: number, body: string): Promise<string> {
    const sock = join(mkdtempSync(join(tmpdir(), 'docker-ping-')), 'engine.sock');
    server = createServer((req, res) => {
      res.statusCode = req.url === '/_ping' ? status : 404;
      res.end(body);
    });
    await new Promise<void>((r) => server!.listen(sock, r));
    return sock;
  }

  it('is true when the socket answers the ping', async () => {
    expect(await dockerEngineReachable(await serveOn(200, 'OK'))).toBe(true);
  });

  it('is false when something else answers', async () => {
    expect(await dockerEngineReachable(await serveOn(500, 'nope'))).toBe(false);
  });

  it('is false when nothing listens', async () => {
    expect(await dockerEngineReachable('/nonexistent/docker.sock')).toBe(false);
  });

  it('reads DOCKER_HOST and ignores non-unix hosts', () => {
    expect(dockerSocketPath({ DOCKER_HOST: 'unix:///run/x.sock' })).toBe('/run/x.sock');
    expect(dockerSocketPath({ DOCKER_HOST: 'tcp://127.0.0.1:2375' })).toBeUndefined();
    expect(dockerSocketPath({})).toBe('/var/run/docker.sock');
  });
});
