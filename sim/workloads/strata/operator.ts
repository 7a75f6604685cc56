import { blockMetaPath, markBlockForDeletion } from '../../../src/bucket/index.js';
import type { Bucket, Env } from '../../../src/runtime/index.js';
import { isCanonicalUlid, parseBlockMeta } from '../../../src/tsdb/index.js';
import type { SimProcess } from '../../cluster/index.js';
import type { MarkForDeletionConfig } from './config_long_term.js';
import { SIM_BUCKET } from './node_config.js';

const RETRY_MS = 1_000;
/** The external label the shipper writes into each block's meta.json. */
const INGESTER_ID_LABEL = '__ingester_id__';

/** A deletion mark the operator wrote, for the report. */
export interface OperatorMark {
  tenant: string;
  block: string;
  at: number;
}

export interface OperatorDeps {
  epochMs: number;
  /** Harness time (true virtual time). */
  now: () => number;
  /** Where the marks written go (the harness's record, outside every process). */
  marks: OperatorMark[];
}

/**
 * An operator at the bucket, the way one runs Cortex's `markblocks` tool: at each of
 * `mark_for_deletion.at` it marks for deletion every block in the bucket that one ingester
 * shipped (its meta.json carries `__ingester_id__`), so the cleaner deletes them after the
 * deletion delay. The other replicas' blocks hold the same samples, so every acknowledged
 * sample stays readable (each is on at least two replicas and at most one other fails);
 * the store-gateways and the querier must cope with blocks marked, dropped and deleted.
 */
export function strataOperator(env: Env, m: MarkForDeletionConfig, deps: OperatorDeps): SimProcess {
  const log = env.logger.child({ role: 'operator' });
  const controller = new AbortController();
  const bucket: Bucket = env.buckets.open({
    backend: 's3',
    endpoint: 'objstore:9000',
    bucketName: SIM_BUCKET,
    accessKeyId: 'sim',
    secretAccessKey: 'sim',
    insecure: true,
  });

  const sleep = async (ms: number): Promise<boolean> => {
    try {
      await env.clock.sleep(ms, controller.signal);
      return true;
    } catch {
      return false;
    }
  };

  /** One pass over the bucket; throws on the first failing call (the pass is retried). */
  const markOnce = async (): Promise<number> => {
    let marked = 0;
    for (const tenantDir of await bucket.list('')) {
      if (!tenantDir.endsWith('/')) continue;
      const tenant = tenantDir.slice(0, -1);
      for (const entry of await bucket.list(tenantDir)) {
        const block = entry.slice(tenantDir.length, -1);
        if (!entry.endsWith('/') || !isCanonicalUlid(block)) continue;
        if (!(await bucket.exists(blockMetaPath(tenant, block)))) continue;
        const meta = parseBlockMeta(
          new TextDecoder().decode(await bucket.get(blockMetaPath(tenant, block))),
        );
        if (meta.thanos?.labels[INGESTER_ID_LABEL] !== m.ingester) continue;
        const details = `sim operator: blocks shipped by ${m.ingester}`;
        if (await markBlockForDeletion(bucket, tenant, block, env.clock, details)) {
          deps.marks.push({ tenant, block, at: deps.now() });
          marked++;
        }
      }
    }
    return marked;
  };

  const run = async (): Promise<void> => {
    for (const at of m.atMs) {
      const wait = deps.epochMs + at - deps.now();
      if (wait > 0 && !(await sleep(wait))) return;
      for (let attempt = 1; ; attempt++) {
        try {
          const marked = await markOnce();
          log.info('marked blocks for deletion', { ingester: m.ingester, marked });
          break;
        } catch (err) {
          if (controller.signal.aborted) return;
          log.warn('marking blocks failed; retrying', { attempt, err: (err as Error).message });
          if (!(await sleep(RETRY_MS))) return;
        }
      }
    }
  };

  return {
    start(signal: AbortSignal): Promise<void> {
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      void run();
      return Promise.resolve();
    },
    async stop(): Promise<void> {
      controller.abort();
      await bucket.close();
    },
  };
}
