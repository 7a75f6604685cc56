import { describe, expect, it } from 'vitest';
import { MemoryBucket } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { legacyTenantDeletionMarkPath, tenantDeletionMarkPath } from './layout.js';
import { listTenants, scanTenants } from './tenants.js';

describe('scanTenants', () => {
  it('lists tenant directories, skipping __markers__ and user-index.json.gz', async () => {
    const bucket = new MemoryBucket({ clock: new ManualClock(0) });
    const one = new Uint8Array([1]);
    await bucket.upload('alpha/B/meta.json', one);
    await bucket.upload('beta/bucket-index.json.gz', one);
    await bucket.upload('gamma/x', one);
    await bucket.upload('user-index.json.gz', one);
    await bucket.upload('stray-object', one);
    await bucket.upload(tenantDeletionMarkPath('beta'), new TextEncoder().encode('{}'));
    await bucket.upload(legacyTenantDeletionMarkPath('gamma'), new TextEncoder().encode('{}'));
    // Deleted long ago: only its global mark is left.
    await bucket.upload(tenantDeletionMarkPath('omega'), new TextEncoder().encode('{}'));

    expect(await listTenants(bucket)).toEqual(['alpha', 'beta', 'gamma', 'omega']);
    expect(await scanTenants(bucket)).toEqual({
      active: ['alpha'],
      deleting: ['beta', 'gamma', 'omega'],
    });
  });

  it('an empty bucket has no tenants', async () => {
    const bucket = new MemoryBucket({ clock: new ManualClock(0) });
    expect(await scanTenants(bucket)).toEqual({ active: [], deleting: [] });
  });
});
