import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBucket } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { BucketDocumentError } from './json_fields.js';
import {
  deletionMarkPath,
  globalDeletionMarkPath,
  globalNoCompactMarkPath,
  legacyTenantDeletionMarkPath,
  noCompactMarkPath,
  tenantDeletionMarkPath,
} from './layout.js';
import {
  blockOfGlobalMark,
  deleteDeletionMark,
  deleteNoCompactMark,
  listGlobalMarks,
  markBlockForNoCompact,
  migrateDeletionMarksToGlobal,
  parseDeletionMark,
  parseNoCompactMark,
  parseTenantDeletionMark,
  readDeletionMark,
  readTenantDeletionMark,
  serializeDeletionMark,
  serializeNoCompactMark,
  serializeTenantDeletionMark,
  tenantDeletionMarkExists,
  writeDeletionMark,
  writeTenantDeletionMark,
} from './markers.js';
import { testUlid } from './testing.js';

const B = testUlid(1_700_000_000_000, 1);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

function setup(): { bucket: MemoryBucket; clock: ManualClock } {
  const clock = new ManualClock(1_700_000_000_500);
  return { bucket: new MemoryBucket({ clock }), clock };
}

describe('mark JSON, as Go marshals it', () => {
  it('deletion mark: field order, details omitted when empty, no newline', () => {
    expect(serializeDeletionMark({ id: B, version: 1, deletion_time: 1700000000 })).toBe(
      `{"id":"${B}","version":1,"deletion_time":1700000000}`,
    );
    expect(
      serializeDeletionMark({ id: B, version: 1, details: 'a<b & "c"', deletion_time: 5 }),
    ).toBe(`{"id":"${B}","version":1,"details":"a\\u003cb \\u0026 \\"c\\"","deletion_time":5}`);
  });

  it('no-compact mark: reason after the time', () => {
    expect(
      serializeNoCompactMark({ id: B, version: 1, no_compact_time: 7, reason: 'manual' }),
    ).toBe(`{"id":"${B}","version":1,"no_compact_time":7,"reason":"manual"}`);
  });

  it('tenant deletion mark: finished_time only once set', () => {
    expect(serializeTenantDeletionMark({ deletion_time: 10 })).toBe('{"deletion_time":10}');
    expect(serializeTenantDeletionMark({ deletion_time: 10, finished_time: 20 })).toBe(
      '{"deletion_time":10,"finished_time":20}',
    );
    expect(parseTenantDeletionMark('{"deletion_time":10,"finished_time":0}', 'f')).toEqual({
      deletion_time: 10,
    });
  });

  it('round-trips any mark', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 40 }),
        fc.string(),
        fc.constantFrom('manual', 'index-size-exceeding', 'other'),
        (t, details, reason) => {
          const d = { id: B, version: 1, deletion_time: t, ...(details ? { details } : {}) };
          expect(parseDeletionMark(serializeDeletionMark(d), 'f')).toEqual(d);
          const n = {
            id: B,
            version: 1,
            no_compact_time: t,
            reason,
            ...(details ? { details } : {}),
          };
          expect(parseNoCompactMark(serializeNoCompactMark(n), 'f')).toEqual(n);
        },
      ),
    );
  });

  it('parse errors name the file and the bad field', () => {
    const bad = (json: string): BucketDocumentError => {
      try {
        parseDeletionMark(json, 'tenant/B/deletion-mark.json');
      } catch (err) {
        expect(err).toBeInstanceOf(BucketDocumentError);
        return err as BucketDocumentError;
      }
      throw new Error('parsed');
    };
    const e1 = bad(`{"id":"${B}","version":1,"deletion_time":"soon"}`);
    expect(e1.file).toBe('tenant/B/deletion-mark.json');
    expect(e1.field).toBe('deletion_time');
    expect(e1.message).toMatch(
      /tenant\/B\/deletion-mark\.json: field deletion_time: must be an integer, got "soon"/,
    );
    expect(bad(`{"id":"nope","version":1}`).field).toBe('id');
    expect(bad(`{"id":"${B}","version":2}`).message).toMatch(
      /field version: unsupported version 2/,
    );
    expect(bad('{').message).toMatch(/not valid JSON/);
    expect(bad('[]').field).toBe('(top level)');
  });

  it('accepts a lower-case ULID and returns it canonical, as Go does', () => {
    expect(parseDeletionMark(`{"id":"${B.toLowerCase()}","version":1}`, 'f').id).toBe(B);
  });
});

describe('block marks in the bucket', () => {
  it('writes both copies, global first, and deletes both', async () => {
    const { bucket } = setup();
    const order: string[] = [];
    const upload = bucket.upload.bind(bucket);
    bucket.upload = (name, data) => {
      order.push(name);
      return upload(name, data);
    };
    await writeDeletionMark(bucket, 't', { id: B, version: 1, deletion_time: 3 });
    expect(order).toEqual([globalDeletionMarkPath('t', B), deletionMarkPath('t', B)]);
    expect(text(await bucket.get(deletionMarkPath('t', B)))).toBe(
      text(await bucket.get(globalDeletionMarkPath('t', B))),
    );
    expect(await readDeletionMark(bucket, 't', B)).toEqual({ id: B, version: 1, deletion_time: 3 });
    await deleteDeletionMark(bucket, 't', B);
    expect(await bucket.list('t/', { recursive: true })).toEqual([]);
    await deleteDeletionMark(bucket, 't', B); // already gone: fine
  });

  it('no-compact marks are mirrored, skipped when present, and removed together', async () => {
    const { bucket, clock } = setup();
    expect(await markBlockForNoCompact(bucket, 't', B, clock, 'manual', 'why')).toBe(true);
    expect(await markBlockForNoCompact(bucket, 't', B, clock, 'manual', 'again')).toBe(false);
    const mark = parseNoCompactMark(await bucket.get(globalNoCompactMarkPath('t', B)), 'f');
    expect(mark).toEqual({
      id: B,
      version: 1,
      no_compact_time: 1_700_000_000,
      reason: 'manual',
      details: 'why',
    });
    expect(await listGlobalMarks(bucket, 't')).toEqual({ deletion: [], noCompact: [B] });
    await deleteNoCompactMark(bucket, 't', B);
    expect(await bucket.exists(noCompactMarkPath('t', B))).toBe(false);
    expect(await bucket.exists(globalNoCompactMarkPath('t', B))).toBe(false);
  });

  it('recognises global mark names only with a canonical block ID', () => {
    expect(blockOfGlobalMark(`${B}-deletion-mark.json`, 'deletion')).toBe(B);
    expect(blockOfGlobalMark(`${B}-deletion-mark.json`, 'no-compact')).toBeUndefined();
    expect(blockOfGlobalMark(`${B}-no-compact-mark.json`, 'no-compact')).toBe(B);
    expect(blockOfGlobalMark('tenant-deletion-mark.json', 'deletion')).toBeUndefined();
    expect(blockOfGlobalMark('cleaner-visit-marker.json', 'deletion')).toBeUndefined();
  });

  it('migrates block-only deletion marks to the global location', async () => {
    const { bucket } = setup();
    const other = testUlid(1_700_000_000_000, 2);
    await bucket.upload(deletionMarkPath('t', B), new TextEncoder().encode('{"id":"x"}'));
    await writeDeletionMark(bucket, 't', { id: other, version: 1, deletion_time: 1 });
    const { migrated, errors } = await migrateDeletionMarksToGlobal(bucket, 't', [B, other]);
    expect(migrated).toEqual([B]);
    expect(errors).toEqual([]);
    expect(text(await bucket.get(globalDeletionMarkPath('t', B)))).toBe('{"id":"x"}');
  });
});

describe('tenant deletion mark', () => {
  it('is written globally and read with a fallback to the legacy location', async () => {
    const { bucket } = setup();
    expect(await readTenantDeletionMark(bucket, 't')).toBeUndefined();
    expect(await tenantDeletionMarkExists(bucket, 't')).toBe(false);
    await bucket.upload(
      legacyTenantDeletionMarkPath('t'),
      new TextEncoder().encode('{"deletion_time":5}'),
    );
    expect(await readTenantDeletionMark(bucket, 't')).toEqual({ deletion_time: 5 });
    expect(await tenantDeletionMarkExists(bucket, 't')).toBe(true);
    await writeTenantDeletionMark(bucket, 't', { deletion_time: 6, finished_time: 7 });
    expect(text(await bucket.get(tenantDeletionMarkPath('t')))).toBe(
      '{"deletion_time":6,"finished_time":7}',
    );
    expect(await readTenantDeletionMark(bucket, 't')).toEqual({
      deletion_time: 6,
      finished_time: 7,
    });
  });

  it('a corrupted mark is an error naming the file', async () => {
    const { bucket } = setup();
    await bucket.upload(
      tenantDeletionMarkPath('t'),
      new TextEncoder().encode('{"deletion_time":"x"}'),
    );
    await expect(readTenantDeletionMark(bucket, 't')).rejects.toThrow(
      /__markers__\/t\/tenant-deletion-mark\.json: field deletion_time/,
    );
  });
});
