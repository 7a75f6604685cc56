/**
 * Tenancy at the HTTP edge: which tenant a request acts for. With `-auth.enabled` the tenant
 * comes from the `X-Scope-OrgID` header and must be a valid tenant ID (Cortex's rules);
 * without it every request acts as the tenant `fake`, as Cortex's fake auth does.
 */
import { BadDataError, UnauthorizedError } from './errors.js';

export const TENANT_HEADER = 'X-Scope-OrgID';

/** The tenant every request acts as when multi-tenancy is disabled (Cortex's name for it). */
export const NO_AUTH_TENANT = 'fake';

export const MAX_TENANT_ID_LENGTH = 150;

/** Cortex's global markers directory in the bucket, which no tenant may be named after. */
const GLOBAL_MARKERS_DIR = '__markers__';

/** Cortex joins tenant IDs with `|` for federated queries; we name it to explain rejections. */
const TENANT_ID_SEPARATOR = '|';

/**
 * Returns undefined when `id` is a valid tenant ID, else the reason it is not. The rules are
 * Cortex's `tenant.ValidTenantID`: only `a-z A-Z 0-9 ! - _ . * ' ( )`, at most 150
 * characters, and not `.`, `..` or `__markers__` (tenant IDs become directory names in storage).
 */
export function tenantIdProblem(id: string): string | undefined {
  if (id === '') return 'tenant ID is empty';
  for (const ch of id) {
    if (!isSupportedTenantChar(ch)) {
      if (ch === TENANT_ID_SEPARATOR) {
        return `tenant ID '${id}' contains unsupported character '|': multiple tenant IDs (federated queries) are not supported`;
      }
      return `tenant ID '${id}' contains unsupported character '${ch}'`;
    }
  }
  if (id.length > MAX_TENANT_ID_LENGTH) {
    return `tenant ID is too long: max ${MAX_TENANT_ID_LENGTH} characters, got ${id.length}`;
  }
  if (id === '.' || id === '..') return `tenant ID is '.' or '..': got '${id}'`;
  // The bucket keeps cluster-wide markers in this directory beside the tenants' ones.
  if (id === GLOBAL_MARKERS_DIR) return `tenant ID '${id}' is reserved`;
  return undefined;
}

function isSupportedTenantChar(ch: string): boolean {
  return /^[a-zA-Z0-9!\-_.*'()]$/.test(ch);
}

/**
 * The tenant a request acts for, from the value of its `X-Scope-OrgID` header (undefined when
 * absent). Throws UnauthorizedError (401) when auth is enabled and the header is missing, and
 * BadDataError (400) when the ID is invalid.
 */
export function resolveTenant(headerValue: string | undefined, authEnabled: boolean): string {
  if (!authEnabled) return NO_AUTH_TENANT;
  if (headerValue === undefined || headerValue === '') {
    throw new UnauthorizedError(`no org id: the ${TENANT_HEADER} header is required`);
  }
  const problem = tenantIdProblem(headerValue);
  if (problem !== undefined) throw new BadDataError(problem);
  return headerValue;
}
