import {
  ScenarioError,
  readBoolean,
  readDuration,
  readNumber,
  readObject,
  readStringList,
} from '../../fields/index.js';
import { BlockDiskLog } from './block_disk.js';
import { bucketStateAt, madeByCompactor, uploadedMetas } from './bucket_history.js';
import { COMPACTION_CHECKS, judgeCompactionCheck } from './compaction_judge.js';
import type { CheckContext } from './checks.js';
import {
  checkAckedReadableExactlyOnce,
  checkIngestionRule,
  checkLiveness,
  checkModelQueries,
  checkNoPhantoms,
} from './checks.js';
import {
  blocksInBucket,
  checkBlocksShipped,
  checkDeletionDelayHonoured,
} from './checks_long_term.js';
import type { SimProcess } from '../../cluster/index.js';
import type { ObjectStoreEvent } from '../../runtime/index.js';
import type { CheckResult, WorkloadContext, WorkloadDefinition } from '../workload.js';
import {
  STRATA_ROLES,
  describeStrata,
  parseStrataConfig,
  type StrataWorkloadConfig,
} from './config.js';
import { WriteLedger, statusCounts } from './ledger.js';
import { ReferenceModel } from './model.js';
import { strataOperator, type OperatorMark } from './operator.js';
import { ReplicaHistory } from './model_replicas.js';
import { SIM_BUCKET, STRATA_TARGETS } from './node_config.js';
import { TSDB_DIR } from './node_paths.js';
import type { ObservedIndex } from './observed_points.js';
import { ReadLog } from './read_log.js';
import { strataReader } from './reader.js';
import { FrontendLog } from './frontend_load.js';
import {
  FRONTEND_CHECKS,
  judgeFrontendCheck,
  wireFrontend,
  withFrontendLoad,
} from './frontend_judge.js';
import { strataProcess } from './strata_process.js';
import { HA_LIMITS_CHECKS, haLimitsWriter, judgeHaLimitsCheck } from './judge_ha_limits.js';
import { strataTimeline } from './timeline.js';
import { outageEndAt, strataWriter } from './writer.js';

const DEFAULT_LIVENESS_WITHIN_MS = 30_000;
const DEFAULT_SHIPPED_WITHIN_MS = 120_000;
/**
 * How long after a (re)start an ingester may still miss pushes (opening its databases,
 * rejoining the ring): the model counts pushes sent later towards its max time.
 */
const REPLICA_READY_GRACE_MS = 5_000;
/** The final reads wait at least this long after the last fault event. */
const READ_AFTER_QUIET_MS = 10_000;

export const STRATA_CHECKS = [
  'acked_readable_exactly_once',
  'no_phantoms',
  'ingestion_rule',
  'model_queries',
  'liveness',
  'blocks_shipped',
  'deletion_delay_honoured',
  ...COMPACTION_CHECKS,
  ...HA_LIMITS_CHECKS,
  ...FRONTEND_CHECKS,
] as const;

/**
 * The Strata cluster workload: distributors, ingesters, queriers, store-gateways and the
 * compactor are real Strata processes (`Strata.create` with the node's role as target);
 * writers are remote-write clients that record every sample and every push outcome in the
 * ledger; the reader reads everything back (in read phases and after the faults heal); the
 * operator marks blocks for deletion. The checks compare the reads with the reference model
 * computed from the ledger, and the bucket's history with the blocks the ingesters cut.
 */
export const strataWorkload: WorkloadDefinition<StrataWorkloadConfig> = {
  kind: 'strata',
  roles: STRATA_ROLES,
  checks: STRATA_CHECKS,

  parseConfig: parseStrataConfig,

  validateTopology(nodesByRole, where) {
    const count = (role: string): number => nodesByRole.get(role)?.length ?? 0;
    for (const role of ['distributor', 'ingester', 'querier', 'writer'])
      if (count(role) === 0 && (role === 'writer' || count('all') === 0))
        throw new ScenarioError(
          `${where}: the strata workload needs at least one ${role} node (or an \`all\` node)`,
        );
    if (count('reader') !== 1)
      throw new ScenarioError(
        `${where}: the strata workload needs exactly one reader node, got ${count('reader')}`,
      );
    if (count('operator') > 1)
      throw new ScenarioError(
        `${where}: the strata workload takes at most one operator node, got ${count('operator')}`,
      );
  },

  describe: describeStrata,

  start(config, ctx) {
    /** Nodes running `role`'s component: its own nodes, then the single binaries (`all`). */
    const running = (role: string): string[] => [
      ...(ctx.nodesByRole.get(role) ?? []),
      ...(ctx.nodesByRole.get('all') ?? []),
    ];
    const ingesters = running('ingester');
    if (ingesters.length < config.replicationFactor)
      throw new ScenarioError(
        `workload.replication_factor: ${config.replicationFactor} needs at least that many ingesters, got ${ingesters.length}`,
      );
    validateLongTermTopology(config, ctx);
    const ignored = config.brokenQuerier.ignoredIngester;
    if (ignored !== '' && !ingesters.includes(ignored))
      throw new ScenarioError(
        `workload.broken_ignored_ingester: ${ignored} is not an ingester node`,
      );
    const blockLog = config.longTerm === undefined ? undefined : new BlockDiskLog();
    const operatorMarks: OperatorMark[] = [];
    for (const node of config.outages.keys())
      if (!(ctx.nodesByRole.get('writer') ?? []).includes(node))
        throw new ScenarioError(`workload.outages: ${node} is not a writer node`);
    const ledger = new WriteLedger();
    const reads = new ReadLog();
    const frontendLog = new FrontendLog();
    const frontends = wireFrontend(config, ctx);
    const strataNodes = STRATA_TARGETS.flatMap((role) => ctx.nodesByRole.get(role) ?? []);
    const now = (): number => ctx.kernel.now();
    const readAtMs = Math.max(
      ctx.epochMs + config.reader.readAtMs,
      ctx.quietAtMs + READ_AFTER_QUIET_MS,
    );
    let model: ReferenceModel | undefined;
    // The checks run after the reads are recorded; each read is indexed once for all of them.
    const observedIndex: ObservedIndex = new WeakMap();
    const checkContext = (): CheckContext => {
      model ??= new ReferenceModel(ledger, {
        tenants: config.tenants,
        blockRangeMs: config.blockRangeMs,
        settleMs: config.settleMs,
        replicationFactor: config.replicationFactor,
        replicas: new ReplicaHistory({
          nodes: ingesters,
          startAt: ctx.epochMs,
          events: ctx.nodeEvents,
          flushOnStop: config.longTerm?.flushOnShutdown ?? false,
          readyGraceMs: REPLICA_READY_GRACE_MS,
        }),
      });
      return {
        ledger,
        model,
        reads,
        tenants: config.tenants.map((t) => t.name),
        epochMs: ctx.epochMs,
        observedIndex,
      };
    };
    const writerStreams = new Map<string, ReturnType<typeof ctx.random.fork>>();
    const streamFor = (writer: string, tenant: string): ReturnType<typeof ctx.random.fork> => {
      const key = `writer/${writer}/${tenant}`;
      let s = writerStreams.get(key);
      if (s === undefined) {
        s = ctx.random.fork(key);
        writerStreams.set(key, s);
      }
      return s;
    };
    return {
      factoryFor(role) {
        switch (role) {
          case 'distributor':
          case 'querier':
          case 'store-gateway':
          case 'compactor':
          case 'query-frontend':
            return (env) =>
              strataProcess(env, role, config, { now, strataNodes, epochMs: ctx.epochMs });
          case 'ingester':
          case 'all':
            return (env) =>
              strataProcess(env, role, config, {
                now,
                strataNodes,
                epochMs: ctx.epochMs,
                ...(blockLog === undefined ? {} : { blockLog }),
              });
          case 'writer':
            return (env) =>
              haLimitsWriter(env, config, ctx, ledger, (tenant) =>
                streamFor(env.nodeName, tenant),
              ) ??
              strataWriter(env, config, {
                ledger,
                distributors: running('distributor'),
                epochMs: ctx.epochMs,
                now,
                streamFor: (tenant) => streamFor(env.nodeName, tenant),
                outages: config.outages.get(env.nodeName) ?? [],
              });
          case 'operator': {
            const mark = config.longTerm?.markForDeletion;
            if (mark === undefined) return () => idleProcess();
            return (env) =>
              strataOperator(env, mark, { epochMs: ctx.epochMs, now, marks: operatorMarks });
          }
          case 'reader':
            // With a query-frontend every read goes through it.
            return (env) =>
              withFrontendLoad(
                strataReader(env, config, {
                  log: reads,
                  queriers: frontends.length > 0 ? frontends : running('querier'),
                  epochMs: ctx.epochMs,
                  readAtMs,
                  now,
                }),
                env,
                config,
                { log: frontendLog, frontends, epochMs: ctx.epochMs, readAtMs, now },
              );
          default:
            throw new Error(
              `strata has no role ${JSON.stringify(role)} (roles: ${STRATA_ROLES.join(', ')})`,
            );
        }
      },
      check(spec) {
        const c = checkContext();
        switch (spec.name) {
          case 'acked_readable_exactly_once':
            readObject(spec.options, 'checks.acked_readable_exactly_once', []);
            return checkAckedReadableExactlyOnce(c);
          case 'no_phantoms':
            readObject(spec.options, 'checks.no_phantoms', []);
            return checkNoPhantoms(c);
          case 'ingestion_rule': {
            const o = readObject(spec.options, 'checks.ingestion_rule', ['expect_rejected']);
            const expectRejected = readStringList(
              o.expect_rejected,
              'checks.ingestion_rule.expect_rejected',
            );
            for (const t of expectRejected)
              if (!c.tenants.includes(t))
                throw new ScenarioError(
                  `checks.ingestion_rule.expect_rejected: unknown tenant ${t}`,
                );
            return checkIngestionRule(c, { expectRejected });
          }
          case 'model_queries':
            readObject(spec.options, 'checks.model_queries', []);
            return checkModelQueries(c, config.reader.queries);
          case 'liveness': {
            const o = readObject(spec.options, 'checks.liveness', ['within']);
            return checkLiveness(c, {
              quietAtMs: ctx.quietAtMs,
              withinMs: readDuration(
                o.within,
                'checks.liveness.within',
                DEFAULT_LIVENESS_WITHIN_MS,
              ),
              judgeUntilMs: readAtMs,
              sendableAt: (s) =>
                outageEndAt(config.outages.get(s.writer) ?? [], ctx.epochMs, s.scrapedAt) ??
                s.scrapedAt,
            });
          }
          case 'blocks_shipped': {
            const o = readObject(spec.options, 'checks.blocks_shipped', ['within', 'min_blocks']);
            if (blockLog === undefined) return notLongTerm(spec.name);
            return checkBlocksShipped({
              blocks: blockLog.blocks,
              shippedAt: blocksInBucket(bucketHistory(ctx)),
              compacted: compactedBlocks(bucketHistory(ctx)),
              onDisk: (b) =>
                ctx.cluster.node(b.node).disk.lookup(`${TSDB_DIR}/${b.tenant}/${b.ulid}`) !==
                undefined,
              powerLosses: (node) =>
                ctx.nodeEvents
                  .filter((e) => e.node === node && e.kind === 'power_loss')
                  .map((e) => e.at),
              quietAtMs: ctx.quietAtMs,
              withinMs: readDuration(
                o.within,
                'checks.blocks_shipped.within',
                DEFAULT_SHIPPED_WITHIN_MS,
              ),
              judgeUntilMs: ctx.endMs,
              minBlocks: readNumber(o.min_blocks, 'checks.blocks_shipped.min_blocks', 1, {
                min: 0,
                integer: true,
              }),
              epochMs: ctx.epochMs,
            });
          }
          case 'deletion_delay_honoured': {
            const o = readObject(spec.options, 'checks.deletion_delay_honoured', [
              'expect_deletions',
            ]);
            if (config.longTerm === undefined) return notLongTerm(spec.name);
            return checkDeletionDelayHonoured({
              history: bucketHistory(ctx),
              deletionDelayMs: config.longTerm.deletionDelayMs,
              expectDeletions: readBoolean(
                o.expect_deletions,
                'checks.deletion_delay_honoured.expect_deletions',
                false,
              ),
              epochMs: ctx.epochMs,
            });
          }
          default: {
            const fe = judgeFrontendCheck(spec, config, checkContext, frontendLog, ctx.epochMs);
            if (fe !== undefined) return fe;
            const mine = judgeHaLimitsCheck(spec, config, ctx, ledger, reads);
            if (mine !== undefined) return mine;
            if (config.longTerm === undefined) return notLongTerm(spec.name);
            const judged = judgeCompactionCheck(spec, config, ctx, bucketHistory(ctx));
            if (judged !== undefined) return judged;
            throw new Error(`strata has no check ${JSON.stringify(spec.name)}`);
          }
        }
      },
      timeline() {
        return strataTimeline(ledger, blockLog?.blocks, bucketHistory(ctx));
      },
      summary() {
        const counts = statusCounts(ledger);
        const attempts = ledger.pushes.reduce((n, p) => n + p.attempts.length, 0);
        const series = [...reads.finalReads.values()].reduce((n, r) => n + r.series.length, 0);
        // How many blocks the ingesters had deleted locally when each read phase began: the
        // reads after those deletions are the ones served by the store-gateways.
        const deletedBefore = (t: number): string =>
          blockLog === undefined
            ? ''
            : ` (${blockLog.blocks.filter((b) => b.deletedAt !== undefined && b.deletedAt < t).length} blocks deleted locally before)`;
        const phases = reads.phases
          .map((p) => {
            const began = Math.min(...[...p.reads.values()].map((r) => r.startedAt));
            return `${p.label} ${p.reads.size}/${config.tenants.length}${p.reads.size === 0 ? '' : deletedBefore(began)}`;
          })
          .join(', ');
        // "In the bucket" counts the cut blocks that reached it; the compactor's own blocks
        // (vertical and horizontal merges of those) are counted apart.
        const inBucket = blocksInBucket(bucketHistory(ctx));
        const blocks =
          blockLog === undefined
            ? ''
            : `; blocks cut ${blockLog.blocks.length}, in the bucket ${blockLog.blocks.filter((b) => inBucket.has(`${b.tenant}/${b.ulid}`)).length}, compacted ${compactedBlocks(bucketHistory(ctx)).size} (partial blocks left ${bucketStateAt(bucketHistory(ctx)).partial.size}), deleted locally ${blockLog.blocks.filter((b) => b.deletedAt !== undefined).length}, marked for deletion by the operator ${operatorMarks.length}`;
        return (
          `generated ${ledger.generatedCount} samples, ${ledger.pushes.length} pushes (${attempts} attempts); ` +
          `acked ${counts.acked}, refused ${counts.rejected}, unknown ${counts.unknown}, unsent ${counts.unsent}; ` +
          `final reads ${reads.finalReads.size}/${config.tenants.length} tenants (${series} series), ` +
          `${reads.queryAnswers.length} model query answers, query mix ${reads.mixOk} ok / ${reads.mixFailed} failed` +
          (phases === '' ? '' : `; ${phases}`) +
          blocks
        );
      },
    };
  },
};

/** The store-gateways, the compactor and the long-term settings come together. */
function validateLongTermTopology(config: StrataWorkloadConfig, ctx: WorkloadContext): void {
  const count = (role: string): number => ctx.nodesByRole.get(role)?.length ?? 0;
  const lt = config.longTerm;
  if (lt === undefined) {
    for (const role of ['store-gateway', 'compactor'])
      if (count(role) > 0)
        throw new ScenarioError(
          `topology: ${role} nodes need workload.long_term (the bucket and its settings)`,
        );
    return;
  }
  for (const role of ['store-gateway', 'compactor'])
    if (count(role) === 0)
      throw new ScenarioError(`workload.long_term: needs at least one ${role} node`);
  const mark = lt.markForDeletion;
  if (mark !== undefined) {
    if (count('operator') === 0)
      throw new ScenarioError('workload.long_term.mark_for_deletion: needs an operator node');
    if (!(ctx.nodesByRole.get('ingester') ?? []).includes(mark.ingester))
      throw new ScenarioError(
        `workload.long_term.mark_for_deletion.ingester: ${mark.ingester} is not an ingester node`,
      );
  }
  if (count('store-gateway') < lt.storeGatewayReplicationFactor)
    throw new ScenarioError(
      `workload.long_term.store_gateway_replication_factor: ${lt.storeGatewayReplicationFactor} needs at least that many store-gateways, got ${count('store-gateway')}`,
    );
}

/** `<tenant>/<ulid>` of every block a compactor uploaded (its meta.json says so). */
function compactedBlocks(history: readonly ObjectStoreEvent[]): Set<string> {
  return new Set(
    uploadedMetas(history)
      .filter((m) => madeByCompactor(m.meta))
      .map((m) => `${m.tenant}/${m.ulid}`),
  );
}

/** Every upload and delete of the blocks bucket (none if no node opened it). */
function bucketHistory(ctx: WorkloadContext): readonly ObjectStoreEvent[] {
  const store = ctx.services.allObjectStores().find((s) => s.config.name === `s3:${SIM_BUCKET}`);
  return store?.history ?? [];
}

/** A node with nothing to do (an operator without marks). */
function idleProcess(): SimProcess {
  return { start: () => Promise.resolve(), stop: () => Promise.resolve() };
}

function notLongTerm(name: string): CheckResult {
  return {
    name,
    verdict: 'pass',
    detail: 'not applicable: the scenario has no workload.long_term',
  };
}
