/**
 * Opens a copy of a Prometheus data directory with Strata's storage engine on the real
 * filesystem and presents it to PromQL as a `Queryable`. The DB querier already has the
 * right select/labelNames/labelValues; this only adapts the shapes (hints are ignored, as
 * a TSDB querier may).
 */
import type { Matcher } from '../../src/model/index.js';
import type { Querier, Queryable, SelectHints, StorageSeries } from '../../src/promql/index.js';
import { createSeededRandom } from '../../src/runtime/index.js';
import { NodeFileSystem, RealClock } from '../../src/runtime/real/index.js';
import { CapturingLogger } from '../../src/runtime/testing/index.js';
import { TSDB } from '../../src/tsdb/index.js';

export class TSDBQueryable implements Queryable {
  constructor(readonly db: TSDB) {}

  querier(mint: number, maxt: number): Promise<Querier> {
    const q = this.db.querier(mint, maxt);
    return Promise.resolve({
      select: async (matchers: readonly Matcher[], _hints?: SelectHints) =>
        (await q.select(matchers)) satisfies StorageSeries[],
      labelNames: (matchers: readonly Matcher[]) => q.labelNames(matchers),
      labelValues: (name: string, matchers: readonly Matcher[]) => q.labelValues(name, matchers),
      close: () => Promise.resolve(),
    });
  }
}

export interface OpenedDB {
  readonly db: TSDB;
  readonly logger: CapturingLogger;
}

/** Opens `dir` (a Prometheus data directory: blocks, `wal/`, ignored `chunks_head/`). */
export async function openPrometheusDataDir(dir: string): Promise<OpenedDB> {
  const logger = new CapturingLogger();
  const db = await TSDB.open(
    dir,
    {},
    {
      fs: new NodeFileSystem(),
      clock: new RealClock(),
      random: createSeededRandom('promql-differential').stream('ulid'),
      logger,
    },
  );
  return { db, logger };
}
