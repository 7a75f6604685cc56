/**
 * How the querier calls store-gateways: the store-gateway module's `StoreGatewayClient`
 * (the three read RPCs, each naming the blocks to read and answering which were read).
 * Over the network that is `TransportStoreGatewayClient`; a store-gateway's bucket stores in
 * this process have no address, so `inProcessBlocksStoreClient` adapts them.
 */
import { fromWireMatchers } from '../ingester/index.js';
import type { BucketStores, StoreGatewayClient } from '../storegateway/index.js';

/** What the querier calls store-gateways through. */
export type BlocksStoreClient = StoreGatewayClient;

/** The bucket stores' read calls (what `inProcessBlocksStoreClient` needs of them). */
export type InProcessBlocksStore = Pick<BucketStores, 'series' | 'labelNames' | 'labelValues'>;

/** The address the in-process store answers at (what store sets and logs name it). */
export const IN_PROCESS_STORE_ADDRESS = 'in-process';

/**
 * A client whose every address is the in-process bucket stores. Requests arrive in wire
 * form (the querier builds one request shape for both), so matchers are rebuilt here as
 * the RPC server would; the call's signal is passed on, its timeout is the query's.
 */
export function inProcessBlocksStoreClient(stores: InProcessBlocksStore): BlocksStoreClient {
  return {
    series: (_addr, tenant, req, opts) =>
      stores.series(
        tenant,
        {
          start: req.start,
          end: req.end,
          matchers: fromWireMatchers(req.matchers),
          blockIds: req.blockIds,
          ...(req.skipChunks === true ? { skipChunks: true } : {}),
        },
        opts?.signal,
      ),
    labelNames: (_addr, tenant, req, opts) =>
      stores.labelNames(
        tenant,
        {
          start: req.start,
          end: req.end,
          matchers: fromWireMatchers(req.matchers),
          blockIds: req.blockIds,
        },
        opts?.signal,
      ),
    labelValues: (_addr, tenant, req, opts) =>
      stores.labelValues(
        tenant,
        {
          start: req.start,
          end: req.end,
          name: req.name,
          matchers: fromWireMatchers(req.matchers),
          blockIds: req.blockIds,
        },
        opts?.signal,
      ),
  };
}
