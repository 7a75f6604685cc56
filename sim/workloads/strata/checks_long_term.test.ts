import { describe, expect, it } from 'vitest';
import type { ObjectStoreEvent } from '../../runtime/index.js';
import type { CutBlock } from './block_disk.js';
import {
  blocksInBucket,
  checkBlocksShipped,
  checkDeletionDelayHonoured,
  type BlocksShippedInput,
} from './checks_long_term.js';

const S = 1_000;
const M = 60_000;
const B1 = '01JAAAAAAAAAAAAAAAAAAAAAA1';
const B2 = '01JAAAAAAAAAAAAAAAAAAAAAA2';
const B3 = '01JAAAAAAAAAAAAAAAAAAAAAA3';
const enc = new TextEncoder();

const upload = (at: number, name: string, content?: string): ObjectStoreEvent => ({
  at,
  op: 'upload',
  name,
  existed: false,
  ...(content === undefined ? {} : { content: enc.encode(content) }),
});
const del = (at: number, name: string): ObjectStoreEvent => ({
  at,
  op: 'delete',
  name,
  existed: true,
});

/** A block's objects uploaded as the shipper does: chunks, index, meta.json last. */
const shipped = (at: number, tenant: string, ulid: string): ObjectStoreEvent[] => [
  upload(at, `${tenant}/${ulid}/chunks/000001`),
  upload(at + 1, `${tenant}/${ulid}/index`),
  upload(at + 2, `${tenant}/${ulid}/meta.json`),
];

function shippedInput(over: Partial<BlocksShippedInput>): BlocksShippedInput {
  return {
    blocks: [],
    shippedAt: new Map(),
    compacted: new Set(),
    onDisk: () => true,
    powerLosses: () => [],
    quietAtMs: 5 * M,
    withinMs: 2 * M,
    judgeUntilMs: 20 * M,
    minBlocks: 1,
    epochMs: 0,
    ...over,
  };
}

describe('blocks_shipped', () => {
  const cut = (node: string, ulid: string, at: number, deletedAt?: number): CutBlock => ({
    node,
    tenant: 't',
    ulid,
    cutAt: at,
    ...(deletedAt === undefined ? {} : { deletedAt }),
  });

  it('finds when each block became complete in the bucket (meta.json, first upload)', () => {
    const history = [
      ...shipped(10 * S, 't', B1),
      upload(11 * S, `t/${B2}/index`), // partial: no meta.json
      ...shipped(20 * S, 't', B1), // re-upload does not move it
    ];
    expect([...blocksInBucket(history)]).toEqual([[`t/${B1}`, 10 * S + 2]]);
  });

  it('passes when every cut block is in the bucket in time, deleted locally only after', () => {
    const r = checkBlocksShipped(
      shippedInput({
        blocks: [cut('i1', B1, 3 * M, 9 * M), cut('i2', B2, 8 * M)],
        shippedAt: new Map([
          [`t/${B1}`, 3 * M + 10 * S],
          [`t/${B2}`, 8 * M + 30 * S],
        ]),
      }),
    );
    expect(r.verdict).toBe('pass');
    expect(r.detail).toMatch(
      /^2 block\(s\) cut by 2 ingester\(s\), 2 of them in the bucket \(and 0 compacted block\(s\)\); 2 judged, .*1 deleted locally after shipping, 0 undone by a power loss/,
    );
  });

  it('names a block deleted locally before it was shipped, and one never shipped', () => {
    const r = checkBlocksShipped(
      shippedInput({
        blocks: [cut('i1', B1, 3 * M, 3 * M + 10 * S), cut('i2', B2, 8 * M)],
        shippedAt: new Map(),
      }),
    );
    expect(r.verdict).toBe('fail');
    expect(r.detail).toBe(
      `2 block(s) not shipped as they should: block ${B1} of t cut by i1 at +3m0s was deleted locally at +3m10s before it was in the bucket (shipped never): its samples are gone; ` +
        `block ${B2} of t cut by i2 at +8m0s was not in the bucket by +10m0s (shipped never)`,
    );
  });

  it('judges from when faults healed, not blocks due after the end, and excuses power loss', () => {
    const r = checkBlocksShipped(
      shippedInput({
        blocks: [cut('i1', B1, 1 * M), cut('i1', B2, 19 * M), cut('i3', B3, 2 * M)],
        // B1 shipped 5m after its cut but within 2m of faults healing at 5m.
        shippedAt: new Map([[`t/${B1}`, 6 * M]]),
        onDisk: (b) => b.ulid !== B3,
        powerLosses: (node) => (node === 'i3' ? [2 * M + 5 * S] : []),
      }),
    );
    expect(r.verdict).toBe('pass');
    expect(r.detail).toMatch(
      /3 block\(s\) cut by 2 ingester\(s\), 1 of them in the bucket \(and 0 compacted block\(s\)\); 1 judged.*1 undone by a power loss/,
    );
    const vanished = checkBlocksShipped(
      shippedInput({ blocks: [cut('i3', B3, 2 * M)], onDisk: () => false }),
    );
    expect(vanished.detail).toMatch(/vanished from the disk without a deletion or a power loss/);
  });

  it('counts compacted blocks apart, and fails a block nobody cut or compacted', () => {
    const shippedAt = new Map([
      [`t/${B1}`, 3 * M],
      [`t/${B2}`, 4 * M],
      [`t/${B3}`, 5 * M],
    ]);
    const ok = checkBlocksShipped(
      shippedInput({
        blocks: [cut('i1', B1, 3 * M)],
        shippedAt,
        compacted: new Set([`t/${B2}`, `t/${B3}`]),
      }),
    );
    expect(ok.verdict).toBe('pass');
    expect(ok.detail).toMatch(
      /^1 block\(s\) cut by 1 ingester\(s\), 1 of them in the bucket \(and 2 compacted block\(s\)\)/,
    );
    const stray = checkBlocksShipped(
      shippedInput({ blocks: [cut('i1', B1, 3 * M)], shippedAt, compacted: new Set([`t/${B2}`]) }),
    );
    expect(stray.verdict).toBe('fail');
    expect(stray.detail).toBe(
      `1 block(s) not shipped as they should: block t/${B3} reached the bucket at +5m0s, but no ingester cut it and no compactor made it`,
    );
  });

  it('fails a scenario that cut no block', () => {
    expect(checkBlocksShipped(shippedInput({})).detail).toMatch(
      /the ingesters cut 0 block\(s\), fewer than 1: the scenario does not exercise shipping/,
    );
  });
});

describe('deletion_delay_honoured', () => {
  const mark = (at: number, name: string, deletionTimeS: number): ObjectStoreEvent =>
    upload(at, name, JSON.stringify({ id: 'x', version: 1, deletion_time: deletionTimeS }));
  const base = { deletionDelayMs: 2 * M, expectDeletions: false, epochMs: 0 };

  it('passes deletes that follow the mark by the delay; visit markers need no mark', () => {
    const history = [
      ...shipped(0, 't', B1),
      mark(60 * S, `t/${B1}/deletion-mark.json`, 60),
      mark(60 * S, `t/markers/${B1}-deletion-mark.json`, 60),
      del(3 * M + 1, `t/${B1}/meta.json`),
      del(3 * M + 2, `t/${B1}/index`),
      del(3 * M + 3, `t/${B1}/deletion-mark.json`),
      del(3 * M + 4, `t/markers/${B1}-deletion-mark.json`),
      upload(4 * M, `t/${B2}/visit-mark.json`),
      del(4 * M + 1, `t/${B2}/visit-mark.json`),
      del(5 * M, 't/bucket-index.json.gz'),
    ];
    const r = checkDeletionDelayHonoured({ ...base, history });
    expect(r).toEqual({
      name: 'deletion_delay_honoured',
      verdict: 'pass',
      detail: "4 deletes of 1 block(s), each at least 2m0s after the block's deletion mark",
    });
  });

  it('lets an aborted upload (no meta.json ever) be removed without a mark, not a complete block', () => {
    const history = [
      upload(10 * S, `t/${B3}/chunks/000001`),
      del(11 * S, `t/${B3}/chunks/000001`),
      ...shipped(20 * S, 't', B2),
      del(2 * M, `t/${B2}/chunks/000001`),
    ];
    const r = checkDeletionDelayHonoured({ ...base, history });
    expect(r.detail).toBe(
      `1 violation(s) of the deletion delay: t/${B2}/chunks/000001 was deleted at +2m0s without a deletion mark`,
    );
    const aborted = checkDeletionDelayHonoured({ ...base, history: history.slice(0, 2) });
    expect(aborted.verdict).toBe('pass');
    expect(aborted.detail).toContain(
      '1 object(s) of partial blocks (uploads that never completed) removed',
    );
  });

  it('lets an abandoned partial block go as soon as it is marked', () => {
    const history = [
      upload(10 * S, `t/${B3}/chunks/000001`),
      upload(3 * M, `t/${B3}/deletion-mark.json`, `{"deletion_time":${(3 * M) / 1000}}`),
      del(3 * M + 1, `t/${B3}/chunks/000001`),
      del(3 * M + 2, `t/${B3}/deletion-mark.json`),
    ];
    const r = checkDeletionDelayHonoured({ ...base, history });
    expect(r.verdict).toBe('pass');
    expect(r.detail).toContain('2 object(s) of partial blocks');
  });

  it('names deletes before the delay and deletes without any mark', () => {
    const history = [
      ...shipped(0, 't', B1),
      ...shipped(0, 't', B2),
      mark(60 * S, `t/${B1}/deletion-mark.json`, 60),
      del(2 * M, `t/${B1}/meta.json`),
      del(2 * M, `t/${B2}/index`),
    ];
    const r = checkDeletionDelayHonoured({ ...base, history });
    expect(r.verdict).toBe('fail');
    expect(r.detail).toBe(
      `2 violation(s) of the deletion delay: t/${B1}/meta.json was deleted at +2m0s, before its deletion mark (deletion_time +1m0s, uploaded +1m0s) was 2m0s old (due +3m0s); ` +
        `t/${B2}/index was deleted at +2m0s without a deletion mark`,
    );
  });

  it('says when nothing was deleted, and fails then if deletions were expected', () => {
    const history = [...shipped(0, 't', B1), mark(60 * S, `t/${B1}/deletion-mark.json`, 60)];
    expect(checkDeletionDelayHonoured({ ...base, history }).detail).toBe(
      'no block object was deleted from the bucket (1 block(s) marked for deletion)',
    );
    expect(checkDeletionDelayHonoured({ ...base, history, expectDeletions: true }).verdict).toBe(
      'fail',
    );
  });
});
