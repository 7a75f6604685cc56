/**
 * The three configurable URL prefixes and their neutral aliases. The product speaks the real
 * names (`/api/prom`, `/prometheus`, `/alertmanager` by default) and also serves the
 * reference's neutral spellings (`/api/mon`, `/mon`, `/notifier`), whatever the configured
 * prefix is, so clients written against either keep working.
 */
import type { HttpServer, RouteSpec } from './http_server.js';

export type ApiPrefix = 'legacy' | 'prometheus' | 'alertmanager';

/** The configured (real) prefixes: `-http.prefix`, `-http.prometheus-http-prefix`, `-http.alertmanager-http-prefix`. */
export interface ApiPrefixes {
  readonly legacy: string;
  readonly prometheus: string;
  readonly alertmanager: string;
}

/** The reference's neutral spellings, always served as aliases. */
export const NEUTRAL_PREFIXES: ApiPrefixes = {
  legacy: '/api/mon',
  prometheus: '/mon',
  alertmanager: '/notifier',
};

/** `/api/prom/` and `api/prom` both mean `/api/prom`; `''` and `/` mean no prefix. */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** The real path first, then the neutral alias unless it is the same path. */
export function prefixedPaths(prefixes: ApiPrefixes, which: ApiPrefix, path: string): string[] {
  const real = `${normalizePrefix(prefixes[which])}${path}`;
  const neutral = `${NEUTRAL_PREFIXES[which]}${path}`;
  return real === neutral ? [real] : [real, neutral];
}

/**
 * Registers `spec` under the server's configured prefix `which` (its `path` and `aliases` are
 * relative to the prefix, e.g. `/api/v1/query`) and under the prefix's neutral alias.
 */
export function registerPrefixedRoute(server: HttpServer, which: ApiPrefix, spec: RouteSpec): void {
  const { prefixes } = server.config;
  const [real, ...aliases] = prefixedPaths(prefixes, which, spec.path);
  const extra = (spec.aliases ?? []).flatMap((a) => prefixedPaths(prefixes, which, a));
  server.registerRoute({ ...spec, path: real ?? spec.path, aliases: [...aliases, ...extra] });
}
