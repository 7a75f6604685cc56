import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeBucketContract, ManualClock } from '../testing/index.js';
import { listObjectNames } from './bucket_listing.js';
import { MemoryBucket } from './memory_bucket.js';

describeBucketContract('MemoryBucket', () =>
  Promise.resolve({
    bucket: new MemoryBucket({ clock: new ManualClock(0) }),
    cleanup: () => Promise.resolve(),
  }),
);

describe('MemoryBucket', () => {
  it('stamps lastModified from the clock it was given', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const bucket = new MemoryBucket({ clock }, 'blocks');
    expect(bucket.name).toBe('blocks');
    await bucket.upload('x', new Uint8Array([1]));
    await clock.advance(5000);
    await bucket.upload('y', new Uint8Array([1]));
    expect((await bucket.attributes('x')).lastModified).toBe(1_700_000_000_000);
    expect((await bucket.attributes('y')).lastModified).toBe(1_700_000_005_000);
  });

  it('rejects object names ending with a slash', async () => {
    const bucket = new MemoryBucket({ clock: new ManualClock() });
    await expect(bucket.upload('dir/', new Uint8Array())).rejects.toThrow(/"dir\/"/);
  });
});

describe('listObjectNames', () => {
  const segment = fc.constantFrom('a', 'b', 'a-b', 'a0', 'é', 'z z');
  const name = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));

  it('matches a model: recursive lists every object below dir; direct lists unique next components', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { maxLength: 20 }),
        fc.array(segment, { maxLength: 2 }),
        (names, dirParts) => {
          const dir = dirParts.join('/');
          const prefix = dir === '' ? '' : `${dir}/`;
          const below = names.filter((n) => n.startsWith(prefix));
          const recursive = listObjectNames(names, dir, true);
          expect(recursive).toEqual([...below].sort());
          const direct = listObjectNames(names, dir, false);
          const expected = new Set(
            below.map((n) => {
              const rest = n.slice(prefix.length);
              const i = rest.indexOf('/');
              return i === -1 ? n : prefix + rest.slice(0, i + 1);
            }),
          );
          expect(direct).toEqual([...expected].sort());
        },
      ),
    );
  });
});
