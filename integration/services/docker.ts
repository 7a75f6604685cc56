/**
 * Whether a Docker engine answers, so integration setup may use testcontainers where one
 * exists. Machines of this project have none: every service must also come from Debian
 * packages, npm or Go modules, and no test may depend on this returning true.
 */
import { request } from 'node:http';

/** The engine's unix socket from DOCKER_HOST (unix:// only) or the default path. */
export function dockerSocketPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const host = env['DOCKER_HOST'];
  if (host === undefined || host === '') return '/var/run/docker.sock';
  return host.startsWith('unix://') ? host.slice('unix://'.length) : undefined;
}

/** Resolves true only when `GET /_ping` on the engine socket answers 200 `OK` in time. */
export async function dockerEngineReachable(
  socketPath: string | undefined = dockerSocketPath(),
  timeoutMs = 1000,
): Promise<boolean> {
  if (socketPath === undefined) return false;
  return new Promise((resolve) => {
    const req = request(
      { socketPath, path: '/_ping', method: 'GET', timeout: timeoutMs },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve(res.statusCode === 200 && body.trim() === 'OK'));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
