/**
 * How a querier calls store-gateways: one interface (so a querier can be tested against a
 * fake, or call a gateway in the same process) and its implementation over the Transport.
 * Failures are the Transport's RpcErrors, except the caller's own abort, which is rethrown
 * as an AbortError; `isRetryableStoreGatewayError` tells which failures another replica may
 * not have.
 */
import { TENANT_RPC_HEADER } from '../ingester/index.js';
import { AbortError, jsonBody, parseJsonBody, type Transport } from '../runtime/index.js';
import type {
  StoreLabelNamesRequest,
  StoreLabelValuesRequest,
  StoreLabelsResponse,
  StoreSeriesRequest,
  StoreSeriesResponse,
} from './wire.js';
import {
  STORE_GATEWAY_LABEL_NAMES,
  STORE_GATEWAY_LABEL_VALUES,
  STORE_GATEWAY_SERIES,
} from './wire.js';
import { decodeStoreSeriesResponse } from './wire_codec.js';

export interface StoreGatewayCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The calls a querier makes to one store-gateway, addressed by its ring address. */
export interface StoreGatewayClient {
  series(
    addr: string,
    tenant: string,
    req: StoreSeriesRequest,
    opts?: StoreGatewayCallOptions,
  ): Promise<StoreSeriesResponse>;
  labelNames(
    addr: string,
    tenant: string,
    req: StoreLabelNamesRequest,
    opts?: StoreGatewayCallOptions,
  ): Promise<StoreLabelsResponse>;
  labelValues(
    addr: string,
    tenant: string,
    req: StoreLabelValuesRequest,
    opts?: StoreGatewayCallOptions,
  ): Promise<StoreLabelsResponse>;
}

export class TransportStoreGatewayClient implements StoreGatewayClient {
  constructor(private readonly transport: Transport) {}

  async series(
    addr: string,
    tenant: string,
    req: StoreSeriesRequest,
    opts: StoreGatewayCallOptions = {},
  ): Promise<StoreSeriesResponse> {
    const res = await this.call(addr, STORE_GATEWAY_SERIES, tenant, req, opts);
    return decodeStoreSeriesResponse(res.body);
  }

  async labelNames(
    addr: string,
    tenant: string,
    req: StoreLabelNamesRequest,
    opts: StoreGatewayCallOptions = {},
  ): Promise<StoreLabelsResponse> {
    return parseJsonBody(await this.call(addr, STORE_GATEWAY_LABEL_NAMES, tenant, req, opts));
  }

  async labelValues(
    addr: string,
    tenant: string,
    req: StoreLabelValuesRequest,
    opts: StoreGatewayCallOptions = {},
  ): Promise<StoreLabelsResponse> {
    return parseJsonBody(await this.call(addr, STORE_GATEWAY_LABEL_VALUES, tenant, req, opts));
  }

  private async call(
    addr: string,
    method: string,
    tenant: string,
    req: unknown,
    opts: StoreGatewayCallOptions,
  ): Promise<{ body: Uint8Array; contentType: string }> {
    try {
      return await this.transport.call(
        addr,
        { method, ...jsonBody(req), headers: { [TENANT_RPC_HEADER]: tenant } },
        opts,
      );
    } catch (err) {
      // Our own abort is not the peer's failure: it must not look retryable.
      if (opts.signal?.aborted === true)
        throw new AbortError(`${method} to ${addr} aborted by the caller`);
      throw err;
    }
  }
}
