/**
 * An in-process IngesterClient for distributor tests: a map of ingesters by address, each
 * recording the requests it accepted, with programmable failures (an RpcError, or a timeout
 * reported as the Transport reports it) and programmable stats for all_user_stats.
 */
import type {
  IngesterCallOptions,
  IngesterClient,
  PushSource,
  WireTenantStats,
  WireUserStats,
} from '../ingester/index.js';
import { RpcError } from '../runtime/index.js';
import type { SeriesChunks } from '../tsdb/index.js';
import type { Labels } from '../model/index.js';
import type { MetricMetadata } from './write_request.js';
import { encodePushBatch, type PushBatch } from '../ingester/index.js';
import { toPlainWriteRequest, type PlainWriteRequest } from './write_request_build.js';
import { decodeWriteRequest } from './write_request_decode.js';

export type FakeBehaviour =
  { kind: 'ok' } | { kind: 'fail'; error: RpcError } | { kind: 'timeout' };

export interface ReceivedPush {
  tenant: string;
  source: PushSource;
  timeoutMs: number | undefined;
  request: Required<PlainWriteRequest>;
}

export class FakeIngesters implements IngesterClient {
  readonly received = new Map<string, ReceivedPush[]>();
  private readonly behaviour = new Map<string, FakeBehaviour>();
  private readonly stats = new Map<string, WireTenantStats[]>();

  set(addr: string, behaviour: FakeBehaviour): void {
    this.behaviour.set(addr, behaviour);
  }

  setStats(addr: string, stats: WireTenantStats[]): void {
    this.stats.set(addr, stats);
  }

  /** The `__name__` of every series `addr` accepted, in arrival order. */
  seriesNames(addr: string): string[] {
    return (this.received.get(addr) ?? []).flatMap((p) =>
      p.request.series.map((s) => s.labels.find(([n]) => n === '__name__')?.[1] ?? ''),
    );
  }

  push(
    addr: string,
    tenant: string,
    batch: PushBatch,
    source: PushSource,
    opts: IngesterCallOptions = {},
  ): Promise<void> {
    const b = this.behaviour.get(addr) ?? { kind: 'ok' };
    if (b.kind === 'fail') return Promise.reject(b.error);
    if (b.kind === 'timeout') {
      return Promise.reject(
        new RpcError('deadline_exceeded', `call to ${addr} timed out after ${opts.timeoutMs}ms`),
      );
    }
    const request = toPlainWriteRequest(decodeWriteRequest(encodePushBatch(batch)));
    let list = this.received.get(addr);
    if (list === undefined) this.received.set(addr, (list = []));
    list.push({ tenant, source, timeoutMs: opts.timeoutMs, request });
    return Promise.resolve();
  }

  allUserStats(addr: string): Promise<WireTenantStats[]> {
    const b = this.behaviour.get(addr) ?? { kind: 'ok' };
    if (b.kind === 'fail') return Promise.reject(b.error);
    return Promise.resolve(this.stats.get(addr) ?? []);
  }

  seriesLabels(): Promise<Labels[]> {
    return Promise.reject(new RpcError('unimplemented', 'fake ingester: seriesLabels'));
  }

  metricsMetadata(): Promise<MetricMetadata[]> {
    return Promise.reject(new RpcError('unimplemented', 'fake ingester: metricsMetadata'));
  }

  queryStream(): Promise<SeriesChunks[]> {
    return Promise.reject(new RpcError('unimplemented', 'fake ingester: queryStream'));
  }

  labelNames(): Promise<string[]> {
    return Promise.reject(new RpcError('unimplemented', 'fake ingester: labelNames'));
  }

  labelValues(): Promise<string[]> {
    return Promise.reject(new RpcError('unimplemented', 'fake ingester: labelValues'));
  }

  userStats(): Promise<WireUserStats> {
    return Promise.reject(new RpcError('unimplemented', 'fake ingester: userStats'));
  }
}
