import { ScenarioError, readDuration, readObject, readStringList } from '../../fields/index.js';
import type { CheckContext } from './checks.js';
import {
  checkAckedReadableExactlyOnce,
  checkIngestionRule,
  checkLiveness,
  checkModelQueries,
  checkNoPhantoms,
} from './checks.js';
import type { WorkloadDefinition } from '../workload.js';
import {
  STRATA_ROLES,
  describeStrata,
  parseStrataConfig,
  type StrataWorkloadConfig,
} from './config.js';
import { WriteLedger, statusCounts } from './ledger.js';
import { ReferenceModel } from './model.js';
import { ReadLog } from './read_log.js';
import { strataReader } from './reader.js';
import { strataProcess } from './strata_process.js';
import { outageEndAt, strataWriter } from './writer.js';

const DEFAULT_LIVENESS_WITHIN_MS = 30_000;
/** The final reads wait at least this long after the last fault event. */
const READ_AFTER_QUIET_MS = 10_000;

export const STRATA_CHECKS = [
  'acked_readable_exactly_once',
  'no_phantoms',
  'ingestion_rule',
  'model_queries',
  'liveness',
] as const;

/**
 * The Strata cluster workload: distributors, ingesters and queriers are real Strata
 * processes (`Strata.create` with the node's role as target); writers are remote-write
 * clients that record every sample and every push outcome in the ledger; the reader reads
 * everything back after the faults heal. The checks compare the reads with the reference
 * model computed from the ledger.
 */
export const strataWorkload: WorkloadDefinition<StrataWorkloadConfig> = {
  kind: 'strata',
  roles: STRATA_ROLES,
  checks: STRATA_CHECKS,

  parseConfig: parseStrataConfig,

  validateTopology(nodesByRole, where) {
    const count = (role: string): number => nodesByRole.get(role)?.length ?? 0;
    for (const role of ['distributor', 'ingester', 'querier', 'writer'])
      if (count(role) === 0)
        throw new ScenarioError(`${where}: the strata workload needs at least one ${role} node`);
    if (count('reader') !== 1)
      throw new ScenarioError(
        `${where}: the strata workload needs exactly one reader node, got ${count('reader')}`,
      );
  },

  describe: describeStrata,

  start(config, ctx) {
    const ingesters = ctx.nodesByRole.get('ingester') ?? [];
    if (ingesters.length < config.replicationFactor)
      throw new ScenarioError(
        `workload.replication_factor: ${config.replicationFactor} needs at least that many ingesters, got ${ingesters.length}`,
      );
    for (const node of config.outages.keys())
      if (!(ctx.nodesByRole.get('writer') ?? []).includes(node))
        throw new ScenarioError(`workload.outages: ${node} is not a writer node`);
    const ledger = new WriteLedger();
    const reads = new ReadLog();
    const now = (): number => ctx.kernel.now();
    const readAtMs = Math.max(
      ctx.epochMs + config.reader.readAtMs,
      ctx.quietAtMs + READ_AFTER_QUIET_MS,
    );
    let model: ReferenceModel | undefined;
    const checkContext = (): CheckContext => {
      model ??= new ReferenceModel(ledger, {
        tenants: config.tenants,
        blockRangeMs: config.blockRangeMs,
        settleMs: config.settleMs,
      });
      return {
        ledger,
        model,
        reads,
        tenants: config.tenants.map((t) => t.name),
        epochMs: ctx.epochMs,
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
          case 'ingester':
          case 'querier':
            return (env) => strataProcess(env, role, config);
          case 'writer':
            return (env) =>
              strataWriter(env, config, {
                ledger,
                distributors: ctx.nodesByRole.get('distributor') ?? [],
                epochMs: ctx.epochMs,
                now,
                streamFor: (tenant) => streamFor(env.nodeName, tenant),
                outages: config.outages.get(env.nodeName) ?? [],
              });
          case 'reader':
            return (env) =>
              strataReader(env, config, {
                log: reads,
                queriers: ctx.nodesByRole.get('querier') ?? [],
                epochMs: ctx.epochMs,
                readAtMs,
                now,
              });
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
          default:
            throw new Error(`strata has no check ${JSON.stringify(spec.name)}`);
        }
      },
      summary() {
        const counts = statusCounts(ledger);
        const attempts = ledger.pushes.reduce((n, p) => n + p.attempts.length, 0);
        const series = [...reads.finalReads.values()].reduce((n, r) => n + r.series.length, 0);
        return (
          `generated ${ledger.generatedCount} samples, ${ledger.pushes.length} pushes (${attempts} attempts); ` +
          `acked ${counts.acked}, refused ${counts.rejected}, unknown ${counts.unknown}, unsent ${counts.unsent}; ` +
          `final reads ${reads.finalReads.size}/${config.tenants.length} tenants (${series} series), ` +
          `${reads.queryAnswers.length} model query answers, query mix ${reads.mixOk} ok / ${reads.mixFailed} failed`
        );
      },
    };
  },
};
