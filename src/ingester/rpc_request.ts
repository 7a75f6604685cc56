// Reading the request of a JSON RPC (the ingester's and the store-gateway's): the tenant
// header, the JSON object body and its numeric fields; anything malformed is an
// `invalid_argument` RpcError naming what is wrong.
import { RpcError, JSON_CONTENT_TYPE, type RpcRequest } from '../runtime/index.js';
import { tenantIdProblem } from '../server/index.js';
import { TENANT_RPC_HEADER } from './wire.js';

const decoder = new TextDecoder();

/** The tenant of a tenant-scoped call; missing or invalid is `invalid_argument`. */
export function rpcTenant(req: RpcRequest): string {
  const tenant = req.headers?.[TENANT_RPC_HEADER];
  if (tenant === undefined || tenant === '')
    throw new RpcError(
      'invalid_argument',
      `no org id: the ${TENANT_RPC_HEADER} header is required`,
    );
  const problem = tenantIdProblem(tenant);
  if (problem !== undefined) throw new RpcError('invalid_argument', problem);
  return tenant;
}

export function jsonRequest(req: RpcRequest): Record<string, unknown> {
  if (req.contentType !== JSON_CONTENT_TYPE)
    throw new RpcError(
      'invalid_argument',
      `${req.method}: expected ${JSON_CONTENT_TYPE}, got ${JSON.stringify(req.contentType)}`,
    );
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(req.body));
  } catch (err) {
    throw new RpcError(
      'invalid_argument',
      `${req.method}: request is not JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new RpcError('invalid_argument', `${req.method}: request must be a JSON object`);
  return value as Record<string, unknown>;
}

/** A request's optional boolean field (undefined when absent); anything else is the caller's error. */
export function optionalBooleanField(
  q: Record<string, unknown>,
  name: string,
): boolean | undefined {
  const v = q[name];
  if (v !== undefined && typeof v !== 'boolean')
    throw new RpcError('invalid_argument', `${name} must be a boolean, got ${JSON.stringify(v)}`);
  return v;
}

/** A request's finite number field; anything else is the caller's error. */
export function numberField(q: Record<string, unknown>, name: string): number {
  const v = q[name];
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new RpcError(
      'invalid_argument',
      `${name} must be a finite number (ms), got ${JSON.stringify(v)}`,
    );
  return v;
}
