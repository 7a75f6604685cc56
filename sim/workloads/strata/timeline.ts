import type { ObjectStoreEvent } from '../../runtime/index.js';
import type { RunEvent } from '../workload.js';
import type { CutBlock } from './block_disk.js';
import { uploadedMetas } from './bucket_history.js';
import { pushEvents } from './push_events.js';
import type { WriteLedger } from './ledger.js';

/**
 * What the Strata workload saw happen, for the HTML report: every push answer on its
 * writer (acknowledged, refused, outcome unknown; the sends are left out, they double the
 * marks and say little), every block an ingester cut or deleted locally, and every block
 * upload (its meta.json, the last object) on the node that made it.
 */
export function strataTimeline(
  ledger: WriteLedger,
  blocks: readonly CutBlock[] | undefined,
  bucketHistory: readonly ObjectStoreEvent[],
): RunEvent[] {
  const out: RunEvent[] = [];
  for (const push of ledger.pushes)
    for (const e of pushEvents(push)) if (e.kind !== 'push.sent') out.push(e);
  for (const b of blocks ?? []) {
    const what = `block ${b.ulid} of ${b.tenant}`;
    out.push({ at: b.cutAt, node: b.node, kind: 'block.cut', detail: what });
    if (b.deletedAt !== undefined)
      out.push({
        at: b.deletedAt,
        node: b.node,
        kind: 'block.deleted',
        detail: `${what} deleted locally`,
      });
  }
  for (const m of uploadedMetas(bucketHistory))
    out.push({
      at: m.uploadedAt,
      node: m.by ?? 'objstore',
      kind: 'block.uploaded',
      detail: `block ${m.ulid} of ${m.tenant} (level ${m.meta.compaction.level})`,
    });
  return out.sort((a, b) => a.at - b.at);
}
