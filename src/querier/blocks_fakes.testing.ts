/**
 * Test doubles for the querier's blocks path: XOR chunks from sample lists, block IDs,
 * hand-written bucket index and meta.json objects, and an in-process BlocksStoreClient over
 * named fake store-gateways, each holding some blocks of some tenants, answering with
 * chunks as a store-gateway does, recording every call, and failing on demand.
 */
import { gzipSync } from 'node:zlib';
import { Labels, type Matcher } from '../model/index.js';
import { fromWireMatchers } from '../ingester/index.js';
import {
  blockMetaPath,
  bucketIndexPath,
  globalDeletionMarkPath,
  type BucketIndex,
} from '../bucket/index.js';
import { RpcError, type Bucket } from '../runtime/index.js';
import { BasicService } from '../services/index.js';
import {
  emptyBlockQueryStats,
  type StoreChunk,
  type StoreGatewayCallOptions,
  type StoreLabelNamesRequest,
  type StoreLabelsResponse,
  type StoreLabelValuesRequest,
  type StoreSeries,
  type StoreSeriesRequest,
  type StoreSeriesResponse,
} from '../storegateway/index.js';
import { Encoding, XorChunk, serializeBlockMeta, ulidFromParts } from '../tsdb/index.js';
import {
  blockWithin,
  sortByMaxTimeDesc,
  type BlocksFinder,
  type FoundBlock,
  type FoundBlocks,
} from './blocks_finder.js';
import type { BlocksStoreClient } from './blocks_store_client.js';
import type { BlocksStoreSet } from './blocks_store_set.js';

export type Sample = readonly [number, number];

/** Samples every 15 minutes in [from, to), valued t/1min. */
export function quarterHourSamples(from: number, to: number): Sample[] {
  const out: Sample[] = [];
  for (let t = from; t < to; t += 15 * 60_000) out.push([t, t / 60_000]);
  return out;
}

/** Per block, the first address of the list not tried yet (deterministic, unlike Cortex's). */
export class OrderedStoreSet implements BlocksStoreSet {
  constructor(private readonly addresses: readonly string[]) {}
  clientsFor(
    _tenant: string,
    ids: readonly string[],
    exclude: ReadonlyMap<string, readonly string[]>,
  ): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const id of ids) {
      const addr = this.addresses.find((a) => !(exclude.get(id) ?? []).includes(a));
      if (addr === undefined) throw new Error(`no store-gateway instance left for block ${id}`);
      out.set(addr, [...(out.get(addr) ?? []), id]);
    }
    return out;
  }
}

/** A finder over a fixed list of blocks and deletion marks (times in ms / Unix s). */
export class StaticBlocksFinder extends BasicService implements BlocksFinder {
  readonly blocks: FoundBlock[] = [];
  readonly deletionMarks = new Map<string, { block_id: string; deletion_time: number }>();
  readonly calls: { tenant: string; minT: number; maxT: number }[] = [];
  ready = true;

  constructor() {
    super('static-blocks-finder', {
      isReady: () => (this.ready ? undefined : 'blocks discovery has not completed'),
    });
  }

  getBlocks(tenant: string, minT: number, maxT: number): Promise<FoundBlocks> {
    this.calls.push({ tenant, minT, maxT });
    const blocks = sortByMaxTimeDesc(this.blocks.filter((b) => blockWithin(b, minT, maxT)));
    const marks = new Map(
      [...this.deletionMarks].filter(([id]) => blocks.some((b) => b.block_id === id)),
    );
    return Promise.resolve({ blocks, deletionMarks: marks });
  }
}

/** One XOR chunk holding `samples` (ascending). */
export function xorChunk(samples: readonly Sample[]): StoreChunk {
  const chunk = new XorChunk();
  const app = chunk.appender();
  for (const [t, v] of samples) app.append(t, v);
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined) throw new RangeError('a chunk needs samples');
  return {
    minTime: first[0],
    maxTime: last[0],
    encoding: Encoding.XOR,
    data: chunk.bytes().slice(),
  };
}

/** `samples` cut into chunks of at most `perChunk` samples. */
export function xorChunks(samples: readonly Sample[], perChunk = 120): StoreChunk[] {
  const out: StoreChunk[] = [];
  for (let i = 0; i < samples.length; i += perChunk)
    out.push(xorChunk(samples.slice(i, i + perChunk)));
  return out;
}

/** A chunk whose bytes count how often they are read (each read starts a decode). */
export function countingChunk(chunk: StoreChunk, counter: { reads: number }): StoreChunk {
  return {
    minTime: chunk.minTime,
    maxTime: chunk.maxTime,
    encoding: chunk.encoding,
    get data() {
      counter.reads++;
      return chunk.data;
    },
  };
}

/** A valid block ULID created at `timeMs` (the `n` keeps IDs of one instant apart). */
export function blockId(timeMs: number, n = 0): string {
  const entropy = new Uint8Array(10);
  entropy[9] = n & 0xff;
  entropy[8] = (n >> 8) & 0xff;
  return ulidFromParts(timeMs, entropy);
}

/** Writes `<tenant>/bucket-index.json.gz` as the compactor would (gzip of the JSON). */
export async function writeIndex(
  bucket: Bucket,
  tenant: string,
  index: BucketIndex,
): Promise<void> {
  await bucket.upload(bucketIndexPath(tenant), gzipSync(JSON.stringify(index)));
}

/** Uploads a block's meta.json (the only object the scan finder reads). */
export async function writeMeta(
  bucket: Bucket,
  tenant: string,
  id: string,
  minTime: number,
  maxTime: number,
): Promise<void> {
  const meta = serializeBlockMeta({
    ulid: id,
    minTime,
    maxTime,
    stats: { numSamples: 1, numSeries: 1, numChunks: 1, numTombstones: 0 },
    compaction: { level: 1, sources: [id] },
    version: 1,
  });
  await bucket.upload(blockMetaPath(tenant, id), new TextEncoder().encode(meta));
}

/** Uploads the global copy of a deletion mark. */
export async function writeDeletionMark(
  bucket: Bucket,
  tenant: string,
  id: string,
  deletionTimeSec: number,
): Promise<void> {
  const mark = JSON.stringify({ id, version: 1, deletion_time: deletionTimeSec });
  await bucket.upload(globalDeletionMarkPath(tenant, id), new TextEncoder().encode(mark));
}

interface FakeSeries {
  readonly labels: Labels;
  readonly samples: readonly Sample[];
}

export interface FakeGateway {
  /** tenant → block ID → the block's series. */
  readonly blocks: Map<string, Map<string, FakeSeries[]>>;
  failure?: Error;
}

export interface StoreCall {
  readonly method: 'series' | 'labelNames' | 'labelValues';
  readonly addr: string;
  readonly tenant: string;
  readonly blockIds: readonly string[];
  readonly start: number;
  readonly end: number;
  readonly skipChunks?: boolean;
}

export class FakeStoreGateways implements BlocksStoreClient {
  readonly gateways = new Map<string, FakeGateway>();
  readonly calls: StoreCall[] = [];

  constructor(private readonly samplesPerChunk = 120) {}

  gateway(addr: string): FakeGateway {
    let g = this.gateways.get(addr);
    if (g === undefined) {
      g = { blocks: new Map() };
      this.gateways.set(addr, g);
    }
    return g;
  }

  /** Puts a series of block `id` of `tenant` on each of `addrs`. */
  add(
    addrs: readonly string[],
    tenant: string,
    id: string,
    labels: Labels,
    samples: readonly Sample[],
  ): void {
    for (const addr of addrs) {
      const g = this.gateway(addr);
      let byBlock = g.blocks.get(tenant);
      if (byBlock === undefined) g.blocks.set(tenant, (byBlock = new Map<string, FakeSeries[]>()));
      const list = byBlock.get(id) ?? [];
      list.push({ labels, samples });
      byBlock.set(id, list);
    }
  }

  series(
    addr: string,
    tenant: string,
    req: StoreSeriesRequest,
    _opts?: StoreGatewayCallOptions,
  ): Promise<StoreSeriesResponse> {
    return this.answer('series', addr, tenant, req, (held) => {
      const matchers = fromWireMatchers(req.matchers);
      const out: StoreSeries[] = [];
      for (const s of held.flatMap(([, list]) => list)) {
        if (!matches(s.labels, matchers)) continue;
        const inRange = s.samples.filter(([t]) => t >= req.start && t <= req.end);
        if (inRange.length === 0) continue;
        const chunks = req.skipChunks === true ? [] : xorChunks(s.samples, this.samplesPerChunk);
        out.push({
          labels: s.labels,
          chunks: chunks.filter((c) => c.maxTime >= req.start && c.minTime <= req.end),
        });
      }
      // One series per label set with the chunks of every block, as a store-gateway merges.
      out.sort((a, b) => Labels.compare(a.labels, b.labels));
      const merged: StoreSeries[] = [];
      for (const s of out) {
        const last = merged[merged.length - 1];
        if (last !== undefined && last.labels.equals(s.labels)) {
          merged[merged.length - 1] = { labels: s.labels, chunks: [...last.chunks, ...s.chunks] };
        } else merged.push(s);
      }
      return { series: merged, stats: emptyBlockQueryStats() };
    });
  }

  labelNames(
    addr: string,
    tenant: string,
    req: StoreLabelNamesRequest,
  ): Promise<StoreLabelsResponse> {
    return this.answer('labelNames', addr, tenant, req, (held) => {
      const names = new Set<string>();
      for (const s of this.inRange(held, req)) for (const n of s.labels.names()) names.add(n);
      return { values: [...names].sort() };
    });
  }

  labelValues(
    addr: string,
    tenant: string,
    req: StoreLabelValuesRequest,
  ): Promise<StoreLabelsResponse> {
    return this.answer('labelValues', addr, tenant, req, (held) => {
      const values = new Set<string>();
      for (const s of this.inRange(held, req))
        if (s.labels.has(req.name)) values.add(s.labels.get(req.name));
      return { values: [...values].sort() };
    });
  }

  private inRange(held: [string, FakeSeries[]][], req: StoreLabelNamesRequest): FakeSeries[] {
    const matchers = fromWireMatchers(req.matchers);
    return held
      .flatMap(([, list]) => list)
      .filter(
        (s) =>
          matches(s.labels, matchers) && s.samples.some(([t]) => t >= req.start && t <= req.end),
      );
  }

  private async answer<T>(
    method: StoreCall['method'],
    addr: string,
    tenant: string,
    req: StoreLabelNamesRequest & { skipChunks?: boolean },
    fn: (held: [string, FakeSeries[]][]) => T,
  ): Promise<T & { queriedBlocks: string[] }> {
    this.calls.push({
      method,
      addr,
      tenant,
      blockIds: [...req.blockIds],
      start: req.start,
      end: req.end,
      ...(req.skipChunks === true ? { skipChunks: true } : {}),
    });
    await Promise.resolve();
    const g = this.gateways.get(addr);
    if (g === undefined) throw new RpcError('unavailable', `no peer listening at ${addr}`);
    if (g.failure !== undefined) throw g.failure;
    const byBlock = g.blocks.get(tenant) ?? new Map<string, FakeSeries[]>();
    const held = req.blockIds
      .filter((id) => byBlock.has(id))
      .map((id): [string, FakeSeries[]] => [id, byBlock.get(id) ?? []]);
    return { ...fn(held), queriedBlocks: held.map(([id]) => id) };
  }
}

function matches(labels: Labels, matchers: readonly Matcher[]): boolean {
  return matchers.every((m) => m.matches(labels.get(m.name)));
}
