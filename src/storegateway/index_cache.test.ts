import { describe, expect, it } from 'vitest';
import { Matcher } from '../model/index.js';
import { newMetricsRegistry, type Cache } from '../runtime/index.js';
import { MemoryCache } from '../runtime/memory/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { crc32c } from '../tsdb/encoding/index.js';
import { blake2b256 } from './blake2b.js';
import {
  IndexCache,
  expandedPostingsCacheKey,
  matchersString,
  postingsCacheKey,
  seriesCacheKey,
} from './index_cache.js';
import { decodePostingsValue, encodePostingsValue } from './index_cache_codec.js';
import { metricValue } from './gateway_harness.testing.js';

// ulid.MustNew(1, nil), the block of Thanos's cache key tests.
const UID = '00000000010000000000000000';
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
/** `dss`, then the snappy framing format's stream identifier chunk. */
const STREAM_START = [...enc('dss'), 0xff, 6, 0, 0, ...enc('sNaPpY')];

describe('blake2b256', () => {
  it('matches the RFC 7693 / Go blake2b.Sum256 digests', () => {
    expect(hex(blake2b256(new Uint8Array()))).toBe(
      '0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8',
    );
    expect(hex(blake2b256(enc('abc')))).toBe(
      'bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319',
    );
    // Exactly one block, and one byte more (the last-block rule).
    expect(hex(blake2b256(new Uint8Array(128)))).toBe(
      '378d0caaaa3855f1b38693c1d6ef004fd118691c95c959d4efa950d6d6fcf7c1',
    );
    expect(hex(blake2b256(new Uint8Array(129)))).toBe(
      'baadfb64c3bd2cd187b54accc5e61a0720ed86bf48c28017873536cf9015d1b8',
    );
  });
});

describe('index cache keys', () => {
  it('are byte-identical to Thanos/Cortex remote index cache keys', () => {
    expect(postingsCacheKey(UID, 'foo', 'bar')).toBe(
      `P:${UID}:jCXwSJJrZbhjpARCdPaLRL-cVX7MJ7mudtvSKh46I9E:dss`,
    );
    // Long labels still give a short key (Thanos: 72 characters before the codec suffix).
    const long = postingsCacheKey(UID, 'a'.repeat(100), 'a'.repeat(1000));
    expect(long).toBe(`P:${UID}:ij0PQ3CV6tVTUFr3857A_Xs0-BZ_geG4KzOyf3Ms9WM:dss`);
    expect(long.length).toBe(72 + ':dss'.length);
    expect(seriesCacheKey(UID, 12345)).toBe(`S:${UID}:12345`);
    const matchers = [Matcher.equal('__name__', 'up'), new Matcher('=~', 'job', 'a.*')];
    expect(matchersString(matchers)).toBe('__name__="up";job=~"a.*"');
    expect(expandedPostingsCacheKey(UID, matchers)).toBe(
      `EP:${UID}:2-c4jPm8cyOvOpflSLsQsZjAQIW6eTFwQUvmLJPic54:dss`,
    );
  });
});

describe('dss postings values', () => {
  it('round-trip and start with the dss header and a snappy stream identifier', () => {
    const refs = Uint32Array.from([0, 1, 5, 300, 70_000, 4_000_000_000]);
    const value = encodePostingsValue(refs);
    expect([...value.subarray(0, 13)]).toEqual(STREAM_START);
    expect(decodePostingsValue(value)).toEqual(refs);
    const many = Uint32Array.from({ length: 50_000 }, (_, i) => i * 3);
    expect(decodePostingsValue(encodePostingsValue(many))).toEqual(many);
    expect(decodePostingsValue(encodePostingsValue([]))).toEqual(new Uint32Array());
  });

  it('reads an uncompressed chunk as another snappy writer may store it', () => {
    const raw = Uint8Array.from([2, 3, 0x80, 0x01]); // refs 2, 5, 133
    const c = crc32c(raw);
    const masked = (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
    const chunk = new Uint8Array(8 + raw.length);
    chunk.set([0x01, raw.length + 4, 0, 0]);
    new DataView(chunk.buffer).setUint32(4, masked, true);
    chunk.set(raw, 8);
    const value = Uint8Array.from([...STREAM_START, ...chunk]);
    expect(decodePostingsValue(value)).toEqual(Uint32Array.from([2, 5, 133]));
  });

  it('rejects values that are not well-formed', () => {
    const good = encodePostingsValue([1, 2, 3]);
    expect(decodePostingsValue(good.subarray(3))).toBeUndefined();
    expect(decodePostingsValue(good.subarray(0, good.length - 1))).toBeUndefined();
    const flipped = good.slice();
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 0xff;
    expect(decodePostingsValue(flipped)).toBeUndefined();
    expect(decodePostingsValue(enc('dvs-something'))).toBeUndefined();
  });
});

class BrokenCache implements Cache {
  readonly name = 'broken';
  getMulti(): Promise<Map<string, Uint8Array>> {
    return Promise.reject(new Error('down'));
  }
  setMulti(): void {
    throw new Error('down');
  }
  delete(): Promise<void> {
    return Promise.reject(new Error('down'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('IndexCache', () => {
  function make() {
    const clock = new ManualClock(0);
    const cache = new MemoryCache({ name: 'index-cache', maxSizeBytes: 1 << 20 }, { clock });
    const registry = newMetricsRegistry();
    return { cache, registry, index: new IndexCache({ cache, registry }) };
  }

  it('stores and finds postings, expanded postings and series, counting per item type', async () => {
    const { cache, registry, index } = make();
    index.storePostings(UID, 'job', 'api', [1, 4, 9]);
    const hits = await index.fetchPostings(UID, 'job', ['api', 'db']);
    expect([...hits]).toEqual([['api', Uint32Array.from([1, 4, 9])]]);
    expect((await cache.getMulti([postingsCacheKey(UID, 'job', 'api')])).size).toBe(1);
    const ms = [Matcher.equal('job', 'api')];
    expect(await index.fetchExpandedPostings(UID, ms)).toBeUndefined();
    index.storeExpandedPostings(UID, ms, [4]);
    expect(await index.fetchExpandedPostings(UID, ms)).toEqual(Uint32Array.from([4]));
    index.storeSeries(UID, 7, enc('body'));
    expect((await index.fetchSeries(UID, [7, 8])).get(7)).toEqual(enc('body'));
    expect((await cache.getMulti([seriesCacheKey(UID, 7)])).size).toBe(1);
    const value = async (name: string, item_type: string) =>
      metricValue(registry, name, { item_type });
    expect(await value('thanos_store_index_cache_requests_total', 'Postings')).toBe(2);
    expect(await value('thanos_store_index_cache_hits_total', 'Postings')).toBe(1);
    expect(await value('thanos_store_index_cache_requests_total', 'ExpandedPostings')).toBe(2);
    expect(await value('thanos_store_index_cache_hits_total', 'ExpandedPostings')).toBe(1);
    expect(await value('thanos_store_index_cache_requests_total', 'Series')).toBe(2);
  });

  it('treats garbage values as misses', async () => {
    const { cache, index } = make();
    cache.setMulti(new Map([[postingsCacheKey(UID, 'job', 'api'), enc('garbage')]]), 0);
    expect((await index.fetchPostings(UID, 'job', ['api'])).size).toBe(0);
  });

  it('is a miss, never an error, when the cache fails', async () => {
    const index = new IndexCache({ cache: new BrokenCache() });
    index.storePostings(UID, 'a', 'b', [1]);
    expect((await index.fetchPostings(UID, 'a', ['b'])).size).toBe(0);
    expect(await index.fetchExpandedPostings(UID, [Matcher.equal('a', 'b')])).toBeUndefined();
    expect((await index.fetchSeries(UID, [1])).size).toBe(0);
  });
});
