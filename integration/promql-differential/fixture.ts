/**
 * The shared data of the differential test: Prometheus 2.42 scrapes a node exporter and
 * itself every second for a while, is stopped cleanly, its data directory is copied and
 * opened with Strata's TSDB, and Prometheus is started again on the original directory
 * without scrape targets, so that both sides answer from exactly the same samples (the
 * restarted Prometheus replays the same WAL and appends nothing).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Matcher } from '../../src/model/index.js';
import { startNodeExporter, type NodeExporterService } from '../services/node_exporter.js';
import { startPrometheus, type PrometheusService } from '../services/prometheus.js';
import { openPrometheusDataDir, TSDBQueryable, type OpenedDB } from './tsdb_queryable.js';

export interface DifferentialFixture {
  /** The query-only Prometheus over the scraped data. */
  readonly prom: PrometheusService;
  readonly opened: OpenedDB;
  readonly queryable: TSDBQueryable;
  /** First and last sample timestamps over all series, ms. */
  readonly minT: number;
  readonly maxT: number;
  /** Every distinct sample timestamp (ms), sorted. */
  readonly timestamps: readonly number[];
  /** Stops every process and removes every directory; safe after a failed setup. */
  close(): Promise<void>;
}

export interface FixtureOptions {
  /** How long Prometheus scrapes, ms. */
  readonly scrapeMs: number;
}

/** Reads every sample timestamp of every series through Strata. */
async function sampleTimestamps(opened: OpenedDB): Promise<number[]> {
  const q = opened.db.querier(0, Number.MAX_SAFE_INTEGER);
  const seen = new Set<number>();
  for (const s of await q.select([Matcher.regex('__name__', '.+')])) {
    const it = s.iterator();
    while (it.next() !== 0) seen.add(it.atT());
    const err = it.err();
    if (err !== null) throw new Error(`reading ${s.labels.toString()}: ${err.message}`);
  }
  return [...seen].sort((a, b) => a - b);
}

export async function setUpFixture(opts: FixtureOptions): Promise<DifferentialFixture> {
  const root = mkdtempSync(join(tmpdir(), 'strata-promql-diff-'));
  const promDir = join(root, 'prometheus');
  const strataDir = join(root, 'strata');
  const running: { stop(): Promise<unknown> }[] = [];
  let opened: OpenedDB | undefined;
  const close = async (): Promise<void> => {
    // Stop in reverse start order; keep going when one stop fails.
    for (const svc of running.reverse()) await svc.stop().catch(() => undefined);
    running.length = 0;
    await opened?.db.close().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const exporter: NodeExporterService = await startNodeExporter();
    running.push(exporter);
    const scraper = await startPrometheus({
      dataDir: promDir,
      jobs: [{ job: 'node', targets: [exporter.address] }],
      scrapeInterval: '1s',
    });
    running.push(scraper);
    await new Promise((r) => setTimeout(r, opts.scrapeMs));
    // A clean stop writes no staleness markers (Prometheus disables end-of-run staleness on
    // shutdown) and leaves the WAL complete, so the copy is consistent.
    const code = await scraper.stop();
    running.splice(running.indexOf(scraper), 1);
    if (code !== 0) throw new Error(`prometheus exited with ${code}:\n${scraper.output()}`);
    await exporter.stop();
    running.splice(running.indexOf(exporter), 1);
    cpSync(promDir, strataDir, { recursive: true });
    rmSync(join(strataDir, 'lock'), { force: true });
    opened = await openPrometheusDataDir(strataDir);
    const prom = await startPrometheus({ dataDir: promDir, scrapeSelf: false });
    running.push(prom);
    const timestamps = await sampleTimestamps(opened);
    const minT = timestamps[0];
    const maxT = timestamps[timestamps.length - 1];
    if (minT === undefined || maxT === undefined) throw new Error('Strata read no samples');
    return {
      prom,
      opened,
      queryable: new TSDBQueryable(opened.db),
      minT,
      maxT,
      timestamps,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
