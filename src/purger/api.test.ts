import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  markBlockForDeletion,
  readTenantDeletionMark,
  tenantDeletionMarkPath,
} from '../bucket/index.js';
import { RecordingBucket, testUlid, uploadTestBlock } from '../bucket/testing.js';
import { BlocksCleaner } from '../compactor/index.js';
import { MemoryBucket, newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { HttpServer } from '../server/index.js';
import { TenantDeletionApi, registerPurgerRoutes } from './api.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const id = (n: number): string => testUlid(T0 - 48 * HOUR, n);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

interface Setup {
  url: string;
  clock: ManualClock;
  inner: MemoryBucket;
  bucket: RecordingBucket;
  logger: CapturingLogger;
  cleaner: BlocksCleaner;
}

async function setup(authEnabled = true): Promise<Setup> {
  const clock = new ManualClock(T0);
  const inner = new MemoryBucket({ clock });
  const bucket = new RecordingBucket(inner);
  const logger = new CapturingLogger();
  const metrics = newMetricsRegistry();
  const http = new HttpServer(
    {
      authEnabled,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock, logger, metrics },
  );
  registerPurgerRoutes(http, new TenantDeletionApi({}, { bucket, clock, logger }));
  const server = createServer(http.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const cleaner = new BlocksCleaner(
    { deletionDelayMs: 12 * HOUR, cleanupConcurrency: 4, tenantCleanupDelayMs: 6 * HOUR },
    { bucket: inner, clock, logger, metrics },
  );
  return { url: `http://127.0.0.1:${port}`, clock, inner, bucket, logger, cleaner };
}

const as = (tenant: string): Record<string, string> => ({ 'X-Scope-OrgID': tenant });

async function status(
  s: Setup,
  tenant: string,
): Promise<{ code: number; type: string | null; body: string }> {
  const res = await fetch(`${s.url}/purger/delete_tenant_status`, { headers: as(tenant) });
  return { code: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('POST /purger/delete_tenant', () => {
  it('writes the global tenant deletion mark dated now and answers 200 with an empty body', async () => {
    const s = await setup();
    await uploadTestBlock(s.inner, 't', id(1));
    const res = await fetch(`${s.url}/purger/delete_tenant`, { method: 'POST', headers: as('t') });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
    expect(await readTenantDeletionMark(s.inner, 't')).toEqual({ deletion_time: T0 / 1000 });
    expect(new TextDecoder().decode(await s.inner.get(tenantDeletionMarkPath('t')))).toBe(
      `{"deletion_time":${T0 / 1000}}`,
    );
    expect(
      s.logger.find('tenant deletion mark in blocks storage created', 'info')[0]?.fields,
    ).toMatchObject({ user: 't' });
    // Only the mark: the blocks are the compactor's to delete.
    expect(await s.inner.exists(`t/${id(1)}/meta.json`)).toBe(true);
  });

  it('asking again writes a fresh mark (Cortex), dropping finished_time', async () => {
    const s = await setup();
    await fetch(`${s.url}/purger/delete_tenant`, { method: 'POST', headers: as('t') });
    await s.cleaner.deleteTenant('t');
    expect((await readTenantDeletionMark(s.inner, 't'))?.finished_time).toBe(T0 / 1000);
    await s.clock.advance(60_000);
    await fetch(`${s.url}/purger/delete_tenant`, { method: 'POST', headers: as('t') });
    expect(await readTenantDeletionMark(s.inner, 't')).toEqual({ deletion_time: T0 / 1000 + 60 });
  });

  it('answers 500 with the error when the mark cannot be written, and logs it', async () => {
    const s = await setup();
    s.bucket.failWhen = (c) => c.op === 'upload';
    const res = await fetch(`${s.url}/purger/delete_tenant`, { method: 'POST', headers: as('t') });
    expect(res.status).toBe(500);
    expect(await res.text()).toMatch(
      /^upload tenant deletion mark: .*__markers__\/t\/tenant-deletion-mark\.json/,
    );
    expect(s.logger.find('failed to write tenant deletion mark', 'error')).toHaveLength(1);
  });
});

describe('GET /purger/delete_tenant_status', () => {
  it('says whether block directories are left, before and after the cleaner ran', async () => {
    const s = await setup();
    await uploadTestBlock(s.inner, 't', id(1));
    await uploadTestBlock(s.inner, 't', id(2), { partial: true });
    await markBlockForDeletion(s.inner, 't', id(1), s.clock, 'x');
    await uploadTestBlock(s.inner, 'other', id(1));
    expect(await status(s, 't')).toEqual({
      code: 200,
      type: 'application/json',
      body: '{"tenant_id":"t","blocks_deleted":false}',
    });
    await fetch(`${s.url}/purger/delete_tenant`, { method: 'POST', headers: as('t') });
    expect((await status(s, 't')).body).toBe('{"tenant_id":"t","blocks_deleted":false}');

    const run = await s.cleaner.runCleanup(new AbortController().signal, true);
    expect(run?.deleted.tenants).toEqual(['t']);
    expect((await status(s, 't')).body).toBe('{"tenant_id":"t","blocks_deleted":true}');
    expect((await status(s, 'other')).body).toBe('{"tenant_id":"other","blocks_deleted":false}');

    // After the tenant cleanup delay even the mark is gone; the answer stays true.
    await s.clock.advance(6 * HOUR);
    await s.cleaner.runCleanup(new AbortController().signal, false);
    expect(await s.inner.exists(tenantDeletionMarkPath('t'))).toBe(false);
    expect((await status(s, 't')).body).toBe('{"tenant_id":"t","blocks_deleted":true}');
  });

  it('counts a partial block as a block, and ignores the tenant’s other objects', async () => {
    const s = await setup();
    await uploadTestBlock(s.inner, 't', id(1), { partial: true });
    expect((await status(s, 't')).body).toBe('{"tenant_id":"t","blocks_deleted":false}');
    const s2 = await setup();
    await s2.inner.upload('t/markers/cleaner-visit-marker.json', new Uint8Array([1]));
    await s2.inner.upload('t/bucket-index.json.gz', new Uint8Array([1]));
    await s2.inner.upload('t/debug/metas/x.json', new Uint8Array([1]));
    expect((await status(s2, 't')).body).toBe('{"tenant_id":"t","blocks_deleted":true}');
  });

  it('a tenant never seen has no blocks', async () => {
    const s = await setup();
    expect((await status(s, 'nobody')).body).toBe('{"tenant_id":"nobody","blocks_deleted":true}');
  });

  it('answers 500 when the bucket cannot be listed', async () => {
    const s = await setup();
    s.bucket.failWhen = (c) => c.op === 'list';
    expect((await status(s, 't')).code).toBe(500);
  });
});

describe('purger endpoints: tenancy and methods', () => {
  it('401 without X-Scope-OrgID, 400 for an invalid tenant ID, 405 for the wrong method', async () => {
    const s = await setup();
    for (const [method, path] of [
      ['POST', '/purger/delete_tenant'],
      ['GET', '/purger/delete_tenant_status'],
    ] as const) {
      expect((await fetch(`${s.url}${path}`, { method })).status).toBe(401);
      const bad = await fetch(`${s.url}${path}`, { method, headers: as('a/b') });
      expect(bad.status).toBe(400);
      expect(await bad.text()).toContain("unsupported character '/'");
    }
    const get = await fetch(`${s.url}/purger/delete_tenant`, { headers: as('t') });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const post = await fetch(`${s.url}/purger/delete_tenant_status`, {
      method: 'POST',
      headers: as('t'),
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect(await s.inner.list('', { recursive: true })).toEqual([]);
  });

  it('with auth disabled acts for the tenant "fake"', async () => {
    const s = await setup(false);
    const res = await fetch(`${s.url}/purger/delete_tenant`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await s.inner.exists(tenantDeletionMarkPath('fake'))).toBe(true);
  });
});
