import { describe, expect, it } from 'vitest';
import { encodeBucketIndex } from '../../../src/bucket/index.js';
import type { ObjectStoreEvent } from '../../runtime/index.js';
import {
  checkBucketIndexMatchesListing,
  checkCompactionConverged,
  checkOneCompactorPerTenant,
  checkSourcesCoveredBeforeMarked,
} from './checks_compaction.js';
import { transitionWindows } from './compaction_judge.js';

const S = 1_000;
const M = 60_000;
const id = (i: number): string => `01JAAAAAAAAAAAAAAAAAAAAAA${i}`;
const [R1, R2, R3, C1, C2, C3, N1, N2] = [1, 2, 3, 4, 5, 6, 7, 8].map(id) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const enc = new TextEncoder();

interface BlockSpec {
  ulid: string;
  min: number;
  max: number;
  level?: number;
  sources?: string[];
}

const meta = (b: BlockSpec): string =>
  JSON.stringify({
    ulid: b.ulid,
    minTime: b.min,
    maxTime: b.max,
    stats: { numSamples: 1 },
    compaction: { level: b.level ?? 1, sources: b.sources ?? [b.ulid] },
    version: 1,
    thanos: {
      labels: { __org_id__: 't' },
      downsample: { resolution: 0 },
      source: (b.level ?? 1) > 1 ? 'compactor' : 'receive',
    },
  });

const upload = (at: number, name: string, by: string, content?: Uint8Array): ObjectStoreEvent => ({
  at,
  op: 'upload',
  name,
  existed: false,
  by,
  ...(content === undefined ? {} : { content }),
});

/** A block uploaded at `at` by `by`: chunks, index, meta.json last. */
const block = (at: number, by: string, b: BlockSpec): ObjectStoreEvent[] => [
  upload(at, `t/${b.ulid}/chunks/000001`, by),
  upload(at + 1, `t/${b.ulid}/index`, by),
  upload(at + 2, `t/${b.ulid}/meta.json`, by, enc.encode(meta(b))),
];
const mark = (at: number, ulid: string, by: string): ObjectStoreEvent =>
  upload(at, `t/${ulid}/deletion-mark.json`, by, enc.encode(`{"deletion_time":${at / 1000}}`));

/** Three replicas of [0, 2m), merged by c-1 into C1 which is then marked. */
const replicasMerged = (): ObjectStoreEvent[] => [
  ...block(1 * M, 'i-1', { ulid: R1, min: 0, max: 2 * M }),
  ...block(1 * M, 'i-2', { ulid: R2, min: 0, max: 2 * M }),
  ...block(1 * M, 'i-3', { ulid: R3, min: 0, max: 2 * M }),
  ...block(3 * M, 'c-1', { ulid: C1, min: 0, max: 2 * M, level: 2, sources: [R1, R2, R3] }),
  mark(3 * M + 10 * S, R1, 'c-1'),
  mark(3 * M + 11 * S, R2, 'c-1'),
  mark(3 * M + 12 * S, R3, 'c-1'),
];

describe('compaction_converged', () => {
  const judge = (history: ObjectStoreEvent[]) =>
    checkCompactionConverged({ history, tenants: ['t'], largestRangeMs: 4 * M, epochMs: 0 });

  it('passes one block per finished largest range, with the newest blocks left alone', () => {
    const history = [
      ...replicasMerged(),
      ...block(4 * M, 'i-1', { ulid: N1, min: 2 * M, max: 4 * M }),
      ...block(5 * M, 'c-1', { ulid: C2, min: 0, max: 4 * M, level: 3, sources: [R1, R2, R3, N1] }),
      mark(5 * M + 10 * S, C1, 'c-1'),
      mark(5 * M + 11 * S, N1, 'c-1'),
      ...block(6 * M, 'i-1', { ulid: N2, min: 4 * M, max: 6 * M }),
      ...block(8 * M, 'i-1', { ulid: C3, min: 6 * M, max: 8 * M }),
    ];
    const r = judge(history);
    expect(r.verdict).toBe('pass');
    expect(r.detail).toBe(
      't: 3 live block(s) (levels 3,1,1), 1 whole 4m0s range(s); 0 partial block(s) left (no meta.json)',
    );
  });

  it('with no_partial_blocks, fails a partial block left in the bucket', () => {
    const history = [
      ...replicasMerged(),
      upload(4 * M, `t/${C2}/chunks/000001`, 'c-2'),
      upload(4 * M + 1, `t/${C2}/index`, 'c-2'),
    ];
    expect(judge(history).verdict).toBe('pass');
    const strict = checkCompactionConverged({
      history,
      tenants: ['t'],
      largestRangeMs: 4 * M,
      epochMs: 0,
      noPartialBlocks: true,
    });
    expect(strict.verdict).toBe('fail');
    expect(strict.detail).toContain(`t/${C2}: a partial block`);
  });

  it('fails replicas left unmerged, leftover sources, and a finished range in two blocks', () => {
    const unmerged = judge([
      ...block(1 * M, 'i-1', { ulid: R1, min: 0, max: 2 * M }),
      ...block(1 * M, 'i-2', { ulid: R2, min: 0, max: 2 * M }),
      ...block(2 * M, 'c-1', { ulid: C1, min: 2 * M, max: 4 * M, level: 2, sources: [N1] }),
    ]);
    expect(unmerged.detail).toContain(
      `t: blocks ${R1} [+0s, +2m0s) level 1 and ${R2} [+0s, +2m0s) level 1 overlap`,
    );
    const leftover = judge(replicasMerged().slice(0, -1));
    expect(leftover.verdict).toBe('fail');
    expect(leftover.detail).toContain(
      `t: block ${R3} [+0s, +2m0s) level 1 is a source of live block ${C1} but was never marked for deletion`,
    );
    const twoBlocks = judge([
      ...replicasMerged(),
      ...block(4 * M, 'i-1', { ulid: N1, min: 2 * M, max: 4 * M }),
      ...block(6 * M, 'i-1', { ulid: N2, min: 4 * M, max: 6 * M }),
      ...block(8 * M, 'i-1', { ulid: C3, min: 6 * M, max: 8 * M }),
    ]);
    expect(twoBlocks.detail).toMatch(/t: the range \[\+0s, \+4m0s\) holds 2 blocks, not one/);
  });

  it('fails a tenant the compactors never compacted', () => {
    const r = judge(block(1 * M, 'i-1', { ulid: R1, min: 0, max: 2 * M }));
    expect(r.detail).toContain('t: no compacted block in the bucket');
  });
});

describe('sources_covered_before_marked', () => {
  const compactors = new Set(['c-1', 'c-2']);

  it('passes marks that follow the output, and ignores the marks of other nodes', () => {
    const history = [...replicasMerged(), mark(10 * M, C1, 'operator')];
    const r = checkSourcesCoveredBeforeMarked({ history, compactors, epochMs: 0 });
    expect(r.verdict).toBe('pass');
    expect(r.detail).toMatch(/^3 block\(s\) marked/);
  });

  it('fails a source marked while its output is still partial', () => {
    const history = [
      ...block(1 * M, 'i-1', { ulid: R1, min: 0, max: 2 * M }),
      upload(3 * M, `t/${C1}/chunks/000001`, 'c-2'),
      mark(3 * M + 1, R1, 'c-2'),
      ...block(3 * M + 5 * S, 'c-2', { ulid: C1, min: 0, max: 2 * M, level: 2, sources: [R1] }),
    ];
    const r = checkSourcesCoveredBeforeMarked({ history, compactors, epochMs: 0 });
    expect(r.detail).toBe(
      `1 block(s) marked for deletion before their data was elsewhere: c-2 marked t/${R1} [+0s, +2m0s) level 1 for deletion at +3m0.001s while no complete block held its sources ${R1}`,
    );
  });
});

describe('one_compactor_per_tenant', () => {
  const base = {
    compactors: new Set(['c-1', 'c-2']),
    tenants: ['t'],
    epochMs: 0,
    endMs: 20 * M,
  };

  it('allows a hand-over inside a transition window, not two writers in a stable period', () => {
    const history = [
      upload(2 * M, 't/bucket-index.json.gz', 'c-1'),
      upload(5 * M + 30 * S, 't/bucket-index.json.gz', 'c-2'),
      upload(7 * M, 't/bucket-index.json.gz', 'c-2'),
      upload(8 * M, 'u/bucket-index.json.gz', 'c-1'),
    ];
    const windows = [{ from: 5 * M, until: 6 * M, why: 'start c-2' }];
    expect(checkOneCompactorPerTenant({ ...base, history, windows }).verdict).toBe('pass');
    const noWindow = checkOneCompactorPerTenant({ ...base, history, windows: [] });
    expect(noWindow.detail).toBe(
      '1 tenant(s) worked on by two compactors at once: t: written by c-1 (upload t/bucket-index.json.gz at +2m0s) and c-2 (upload t/bucket-index.json.gz at +5m30s) between +0s and +20m0s, outside any ring transition',
    );
  });

  it('opens windows at compactor changes, at partitions cutting one off the KV, and at heals', () => {
    const windows = transitionWindows(
      {
        epochMs: 0,
        nodeEvents: [
          { at: 4 * M, node: 'c-2', kind: 'start' },
          { at: 5 * M, node: 'ingester-1', kind: 'crash' },
        ],
        faultEvents: [
          { at: 6 * M, kind: 'partition', names: ['c-1', 'kv'] },
          { at: 7 * M, kind: 'partition', names: ['c-1', 'objstore'] },
          { at: 8 * M, kind: 'heal', names: [] },
        ],
      },
      new Set(['c-1', 'c-2']),
      { ringStore: 'inmemory' },
      M,
    );
    expect(windows.map((w) => [w.from / M, w.until / M, w.why])).toEqual([
      [0, 1, 'cluster start'],
      [4, 5, 'start c-2'],
      [6, 7, 'partition c-1,kv'],
      [8, 9, 'heal '],
    ]);
  });
});

describe('bucket_index_matches_listing', () => {
  const index = (blocks: string[], marks: string[]): Uint8Array =>
    encodeBucketIndex({
      version: 1,
      blocks: blocks.map((b) => ({ block_id: b, min_time: 0, max_time: 2 * M, uploaded_at: 0 })),
      block_deletion_marks: marks.map((b) => ({ block_id: b, deletion_time: 0 })),
      updated_at: 0,
    });
  const judge = (history: ObjectStoreEvent[]) =>
    checkBucketIndexMatchesListing({ history, tenants: ['t'], settleMs: 30 * S, epochMs: 0 });

  it('passes an index equal to the bucket, and fails one that misses a block', () => {
    const bucket = replicasMerged();
    const ok = judge([
      ...bucket,
      upload(10 * M, 't/bucket-index.json.gz', 'c-1', index([R1, R2, R3, C1], [R1, R2, R3])),
    ]);
    expect(ok.verdict).toBe('pass');
    const missing = judge([
      ...bucket,
      upload(10 * M, 't/bucket-index.json.gz', 'c-1', index([R1, R2, R3], [R1, R2, R3])),
    ]);
    expect(missing.detail).toBe(
      `1 bucket index(es) differing from the bucket: t: the index written at +10m0s by c-1 misses blocks ${C1}`,
    );
  });

  it('fails when the bucket kept changing after the last index', () => {
    const r = judge([
      upload(1 * M, 't/bucket-index.json.gz', 'c-1', index([], [])),
      ...replicasMerged(),
    ]);
    expect(r.detail).toMatch(/no final cleanup to judge/);
  });
});
