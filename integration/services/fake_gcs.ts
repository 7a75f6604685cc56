/**
 * fake-gcs-server (built from its Go module, see go_build.ts) as the GCS service of the
 * integration tests: in-memory storage over plain http on a free loopback port. Clients
 * reach it through `STORAGE_EMULATOR_HOST` (the variable the Google SDKs honour) or the gcs
 * backend's `emulatorHost`.
 */
import { freePort } from '../strata-process.js';
import { FAKE_GCS_TOOL, goToolPath } from './go_build.js';
import { spawnService, waitUntilReady } from './process.js';

export interface FakeGcsService {
  /** `http://127.0.0.1:<port>`: the value for STORAGE_EMULATOR_HOST. */
  readonly url: string;
  /** Creates an empty bucket with a name no other call returned. */
  createBucket(prefix?: string): Promise<string>;
  output(): string;
  stop(): Promise<void>;
}

export async function startFakeGcs(
  opts: { readyTimeoutMs?: number } = {},
): Promise<FakeGcsService> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const svc = spawnService('fake-gcs-server', goToolPath(FAKE_GCS_TOOL), [
    '-scheme',
    'http',
    '-host',
    '127.0.0.1',
    '-port',
    String(port),
    '-backend',
    'memory',
    '-log-level',
    'warn',
    '-external-url',
    url,
    '-public-host',
    `127.0.0.1:${port}`,
  ]);
  try {
    await waitUntilReady(svc, `${url}/storage/v1/b`, opts.readyTimeoutMs ?? 30_000);
  } catch (err) {
    await svc.stop(2_000);
    throw err;
  }
  let seq = 0;
  return {
    url,
    createBucket: async (prefix = 'strata') => {
      const name = `${prefix}-${process.pid}-${++seq}`.toLowerCase();
      // The JSON API's bucket insert; the emulator needs no project or credentials.
      const res = await fetch(`${url}/storage/v1/b?project=test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      if (!res.ok) throw new Error(`create gcs bucket ${name}: ${res.status} ${await res.text()}`);
      return name;
    },
    output: () => svc.output(),
    stop: async () => {
      await svc.stop(5_000);
    },
  };
}
