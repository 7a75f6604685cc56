// The single binary's shortcut: a distributor pushing to the ingester of its own process
// hands it the decoded batch directly (no protobuf encode, no decode, no deadline: the call
// cannot be lost on a network); everything else goes through the given client.
import type { MetricMetadata } from '../distributor/index.js';
import type { Labels } from '../model/index.js';
import type { PushSource } from './push_types.js';
import type { IngesterCallOptions, IngesterClient, PushBatch } from './client.js';
import type { Ingester } from './ingester.js';
import { pushBatch } from './ingester_rpc.js';
import type { SeriesChunks } from '../tsdb/index.js';
import { fromWireMatchers } from './wire.js';
import type {
  LabelNamesRequest,
  LabelValuesRequest,
  QueryRequest,
  WireTenantStats,
  WireUserStats,
} from './wire.js';

export class LocalFirstIngesterClient implements IngesterClient {
  constructor(
    private readonly remote: IngesterClient,
    /** The ingester of this process, while it runs and is registered at its ring address. */
    private readonly local: () => Ingester | undefined,
  ) {}

  push(
    addr: string,
    tenant: string,
    batch: PushBatch,
    source: PushSource,
    opts?: IngesterCallOptions,
  ): Promise<void> {
    const ingester = this.local();
    if (ingester !== undefined && ingester.ringAddress === addr)
      return pushBatch(ingester, tenant, batch, source);
    return this.remote.push(addr, tenant, batch, source, opts);
  }

  queryStream(
    addr: string,
    tenant: string,
    req: QueryRequest,
    opts?: IngesterCallOptions,
  ): Promise<SeriesChunks[]> {
    // The own ingester's chunks are handed over as they are: completed chunks never change
    // and the open one is a snapshot, so no encoding, copy or decoding is needed.
    const ingester = this.local();
    if (ingester !== undefined && ingester.ringAddress === addr)
      return ingester.queryStream(
        tenant,
        req.start,
        req.end,
        fromWireMatchers(req.matchers),
        opts?.signal,
        req.sortSeries !== false,
      );
    return this.remote.queryStream(addr, tenant, req, opts);
  }

  seriesLabels(
    addr: string,
    tenant: string,
    req: QueryRequest,
    opts?: IngesterCallOptions,
  ): Promise<Labels[]> {
    return this.remote.seriesLabels(addr, tenant, req, opts);
  }

  labelNames(
    addr: string,
    tenant: string,
    req: LabelNamesRequest,
    opts?: IngesterCallOptions,
  ): Promise<string[]> {
    return this.remote.labelNames(addr, tenant, req, opts);
  }

  labelValues(
    addr: string,
    tenant: string,
    req: LabelValuesRequest,
    opts?: IngesterCallOptions,
  ): Promise<string[]> {
    return this.remote.labelValues(addr, tenant, req, opts);
  }

  userStats(addr: string, tenant: string, opts?: IngesterCallOptions): Promise<WireUserStats> {
    return this.remote.userStats(addr, tenant, opts);
  }

  allUserStats(addr: string, opts?: IngesterCallOptions): Promise<WireTenantStats[]> {
    return this.remote.allUserStats(addr, opts);
  }

  metricsMetadata(
    addr: string,
    tenant: string,
    opts?: IngesterCallOptions,
  ): Promise<MetricMetadata[]> {
    return this.remote.metricsMetadata(addr, tenant, opts);
  }
}
