/**
 * The test's own view of a bucket Strata writes to, through each store's own client (the
 * `minio` client, fake-gcs-server's JSON API, the Azure SDK, node:fs) rather than Strata's
 * bucket code, so that what a test sees in the bucket does not depend on the code under
 * test. Also readers for the Cortex layout: the blocks of a tenant and its bucket index.
 */
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { Client } from 'minio';
import type { AzuriteService } from '../services/azurite.js';
import type { MinioService } from '../services/minio.js';

export interface BucketObject {
  /** Full object name, e.g. `fake/01H…/chunks/000001`. */
  readonly name: string;
  readonly size: number;
}

export interface BucketView {
  readonly description: string;
  /** Every object whose name starts with `prefix` (recursively), sorted by name. */
  list(prefix?: string): Promise<BucketObject[]>;
  get(name: string): Promise<Buffer>;
  put(name: string, data: Uint8Array | string): Promise<void>;
  remove(name: string): Promise<void>;
}

const byName = (a: BucketObject, b: BucketObject): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

export function minioView(minio: MinioService, bucket: string): BucketView {
  const [host, port] = minio.endpoint.split(':');
  const client = new Client({
    endPoint: host ?? '127.0.0.1',
    port: Number(port),
    useSSL: false,
    accessKey: minio.accessKeyId,
    secretKey: minio.secretAccessKey,
  });
  return {
    description: `MinIO bucket ${bucket}`,
    list: async (prefix = '') => {
      const out: BucketObject[] = [];
      const stream = client.listObjectsV2(bucket, prefix, true);
      for await (const item of stream as AsyncIterable<{ name?: string; size?: number }>) {
        if (item.name !== undefined) out.push({ name: item.name, size: item.size ?? 0 });
      }
      return out.sort(byName);
    },
    get: async (name) => {
      const stream = await client.getObject(bucket, name);
      const chunks: Buffer[] = [];
      for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
      return Buffer.concat(chunks);
    },
    put: async (name, data) => {
      await client.putObject(bucket, name, Buffer.from(data));
    },
    remove: (name) => client.removeObject(bucket, name),
  };
}

/** fake-gcs-server through the GCS JSON API (`url` is its STORAGE_EMULATOR_HOST). */
export function gcsView(url: string, bucket: string): BucketView {
  const base = `${url}/storage/v1/b/${encodeURIComponent(bucket)}/o`;
  const check = async (res: Response, what: string): Promise<Response> => {
    if (!res.ok) throw new Error(`gcs ${what}: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    description: `GCS bucket ${bucket}`,
    list: async (prefix = '') => {
      const out: BucketObject[] = [];
      let token: string | undefined;
      do {
        const qs = new URLSearchParams({ prefix, maxResults: '1000' });
        if (token !== undefined) qs.set('pageToken', token);
        const res = await check(await fetch(`${base}?${qs.toString()}`), `list ${prefix}`);
        const body = (await res.json()) as {
          items?: { name: string; size: string }[];
          nextPageToken?: string;
        };
        for (const it of body.items ?? []) out.push({ name: it.name, size: Number(it.size) });
        token = body.nextPageToken;
      } while (token !== undefined && token !== '');
      return out.sort(byName);
    },
    get: async (name) => {
      const res = await check(
        await fetch(`${base}/${encodeURIComponent(name)}?alt=media`),
        `get ${name}`,
      );
      return Buffer.from(await res.arrayBuffer());
    },
    put: async (name, data) => {
      const upload = `${url}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o`;
      await check(
        await fetch(`${upload}?uploadType=media&name=${encodeURIComponent(name)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream' },
          body: Buffer.from(data),
        }),
        `put ${name}`,
      );
    },
    remove: async (name) => {
      await check(
        await fetch(`${base}/${encodeURIComponent(name)}`, { method: 'DELETE' }),
        `delete ${name}`,
      );
    },
  };
}

export function azureView(azurite: AzuriteService, container: string): BucketView {
  const service = new BlobServiceClient(
    `http://${azurite.endpointSuffix}/${azurite.accountName}`,
    new StorageSharedKeyCredential(azurite.accountName, azurite.accountKey),
  );
  const c = service.getContainerClient(container);
  return {
    description: `Azure container ${container}`,
    list: async (prefix = '') => {
      const out: BucketObject[] = [];
      for await (const b of c.listBlobsFlat({ prefix })) {
        out.push({ name: b.name, size: b.properties.contentLength ?? 0 });
      }
      return out.sort(byName);
    },
    get: async (name) => c.getBlobClient(name).downloadToBuffer(),
    put: async (name, data) => {
      const body = Buffer.from(data);
      await c.getBlockBlobClient(name).upload(body, body.length);
    },
    remove: async (name) => {
      await c.getBlobClient(name).delete();
    },
  };
}

/** A filesystem bucket (`-experimental.tsdb.filesystem.dir`): object names are paths under `dir`. */
export function filesystemView(dir: string): BucketView {
  const walk = async (path: string, out: BucketObject[]): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(path);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(path, n);
      const st = await stat(p);
      if (st.isDirectory()) await walk(p, out);
      else out.push({ name: relative(dir, p), size: st.size });
    }
  };
  return {
    description: `filesystem bucket ${dir}`,
    list: async (prefix = '') => {
      const out: BucketObject[] = [];
      await walk(dir, out);
      return out.filter((o) => o.name.startsWith(prefix)).sort(byName);
    },
    get: (name) => readFile(join(dir, name)),
    put: async (name, data) => {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), data);
    },
    remove: (name) => rm(join(dir, name)),
  };
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** A tenant's block directories in the bucket: ULID → its objects (names relative to the block). */
export async function tenantBlocks(
  view: BucketView,
  tenant: string,
): Promise<Map<string, BucketObject[]>> {
  const blocks = new Map<string, BucketObject[]>();
  for (const o of await view.list(`${tenant}/`)) {
    const [, block, ...rest] = o.name.split('/');
    if (block === undefined || !ULID.test(block) || rest.length === 0) continue;
    let files = blocks.get(block);
    if (files === undefined) blocks.set(block, (files = []));
    files.push({ name: rest.join('/'), size: o.size });
  }
  return blocks;
}

/** The blocks of a tenant that are complete uploads (meta.json present, which comes last). */
export async function completeBlocks(view: BucketView, tenant: string): Promise<string[]> {
  const blocks = await tenantBlocks(view, tenant);
  return [...blocks]
    .filter(([, files]) => files.some((f) => f.name === 'meta.json'))
    .map(([id]) => id)
    .sort();
}

export interface BucketIndexDocument {
  version: number;
  blocks: { block_id: string; min_time: number; max_time: number; uploaded_at: number }[];
  block_deletion_marks: { block_id: string; deletion_time: number }[];
  updated_at: number;
}

/** `<tenant>/bucket-index.json.gz`, or undefined when there is none or it does not parse. */
export async function readBucketIndexDocument(
  view: BucketView,
  tenant: string,
): Promise<BucketIndexDocument | undefined> {
  try {
    const gz = await view.get(`${tenant}/bucket-index.json.gz`);
    return JSON.parse(gunzipSync(gz).toString('utf8')) as BucketIndexDocument;
  } catch {
    return undefined;
  }
}

/** Block meta.json as Strata ships it (the fields the tests check). */
export interface ShippedMeta {
  ulid: string;
  minTime: number;
  maxTime: number;
  stats?: { numSamples?: number; numSeries?: number; numChunks?: number };
  compaction?: { level: number; sources?: string[] };
  version: number;
  thanos?: {
    labels?: Record<string, string>;
    downsample?: { resolution: number };
    source?: string;
    segment_files?: string[];
    files?: { rel_path: string; size_bytes?: number }[];
    index_stats?: Record<string, unknown>;
  };
}

export async function readMeta(
  view: BucketView,
  tenant: string,
  block: string,
): Promise<ShippedMeta> {
  return JSON.parse(
    (await view.get(`${tenant}/${block}/meta.json`)).toString('utf8'),
  ) as ShippedMeta;
}
