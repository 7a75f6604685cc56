/**
 * Azurite (npm devDependency) as the Azure Blob service of the integration tests: only its
 * blob service, on a free loopback port, with its data in a temporary directory. It serves
 * the well-known development account; the azure backend reaches it with
 * `endpoint_suffix: 127.0.0.1:<port>` (an IP suffix selects the path-style emulator URL).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { freePort } from '../strata-process.js';
import { spawnService, waitUntilReady } from './process.js';

/** Azurite's fixed development account (public, documented by Microsoft). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface AzuriteService {
  /** `127.0.0.1:<port>`: the azure backend's `endpoint_suffix`. */
  readonly endpointSuffix: string;
  readonly accountName: string;
  readonly accountKey: string;
  /** Creates an empty container with a name no other call returned. */
  createContainer(prefix?: string): Promise<string>;
  output(): string;
  stop(): Promise<void>;
}

const AZURITE_BLOB_BIN = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '.bin',
  'azurite-blob',
);

export async function startAzurite(
  opts: { readyTimeoutMs?: number } = {},
): Promise<AzuriteService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'strata-azurite-'));
  const port = await freePort();
  const endpointSuffix = `127.0.0.1:${port}`;
  const svc = spawnService('azurite-blob', AZURITE_BLOB_BIN, [
    '--blobHost',
    '127.0.0.1',
    '--blobPort',
    String(port),
    '--location',
    dataDir,
    '--loose',
    '--skipApiVersionCheck',
    '--disableProductStyleUrl',
    '--disableTelemetry',
    '--silent',
  ]);
  try {
    // Any HTTP answer means it listens; unauthenticated requests get 4xx.
    await waitUntilReady(
      svc,
      `http://${endpointSuffix}/${AZURITE_ACCOUNT}?comp=list`,
      opts.readyTimeoutMs ?? 30_000,
      (status) => status > 0,
    );
  } catch (err) {
    await svc.stop(2_000);
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const service = new BlobServiceClient(
    `http://${endpointSuffix}/${AZURITE_ACCOUNT}`,
    new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY),
  );
  let seq = 0;
  return {
    endpointSuffix,
    accountName: AZURITE_ACCOUNT,
    accountKey: AZURITE_KEY,
    createContainer: async (prefix = 'strata') => {
      const name = `${prefix}-${process.pid}-${++seq}`.toLowerCase();
      await service.getContainerClient(name).create();
      return name;
    },
    output: () => svc.output(),
    stop: async () => {
      try {
        await svc.stop(5_000);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
