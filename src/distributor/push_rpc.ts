/**
 * The `distributor.Push` RPC: what the ruler and the simulator's remote-write clients call
 * instead of HTTP. The body is an uncompressed `prometheus.WriteRequest`; the tenant travels
 * in `x-scope-orgid`, the source optionally in `x-strata-push-source`. Failures are RpcErrors
 * whose code follows the HTTP status the push route would answer, with the same message.
 */
import { PUSH_SOURCE_HEADER, TENANT_RPC_HEADER, type PushSource } from '../ingester/index.js';
import { jsonBody, RpcError, type RpcRequest, type RpcResponse } from '../runtime/index.js';
import { tenantIdProblem } from '../server/index.js';
import type { Distributor } from './distributor.js';
import { ProtoDecodeError } from './proto_reader.js';
import { toPushRpcError } from './push_errors.js';
import { WRITE_SOURCE_RULE, type WriteRequestData } from './write_request.js';
import { decodeWriteRequest } from './write_request_decode.js';

export const DISTRIBUTOR_PUSH = 'distributor.Push';

/** Handles one `distributor.Push` call; answers `{"status":200}` or `{"status":202}`. */
export async function servePushRpc(
  distributor: Distributor,
  req: RpcRequest,
): Promise<RpcResponse> {
  const tenant = req.headers?.[TENANT_RPC_HEADER] ?? '';
  if (tenant === '') throw new RpcError('unauthenticated', 'no org id');
  const problem = tenantIdProblem(tenant);
  if (problem !== undefined) throw new RpcError('invalid_argument', problem);
  const limit = distributor.config.maxRecvMsgSize;
  if (req.body.length > limit) {
    throw new RpcError(
      'invalid_argument',
      `received message larger than max (${req.body.length} vs ${limit})`,
    );
  }
  let write: WriteRequestData;
  try {
    write = decodeWriteRequest(req.body, distributor.labelsCache);
  } catch (err) {
    if (err instanceof ProtoDecodeError) {
      throw new RpcError(
        'invalid_argument',
        `failed to decode remote write request: ${err.message}`,
      );
    }
    throw err;
  }
  const header = req.headers?.[PUSH_SOURCE_HEADER];
  const source: PushSource =
    header === 'rule' || header === 'api'
      ? header
      : write.source === WRITE_SOURCE_RULE
        ? 'rule'
        : 'api';
  try {
    const outcome = await distributor.push(tenant, write, source);
    return jsonBody({ status: outcome.status });
  } catch (err) {
    throw toPushRpcError(err);
  }
}
