/**
 * The wrapper every API endpoint runs in (Prometheus `API.Register`'s `wrap`): parse the
 * form, run the endpoint, and answer with the JSON envelope — success with warnings/infos,
 * 204 when there is no data, or the error envelope with the status of its errorType. It
 * never lets an error reach the server's plain-text error handler.
 */
import type { Request, Response } from 'express';
import type { Annotations } from '../promql/index.js';
import type { Clock, Logger } from '../runtime/index.js';
import { tenantOf, writeBody } from '../server/index.js';
import { type BodyParts, errorBody, successBody } from './encode.js';
import { isUncoded, toApiError } from './errors.js';
import { type Form, parseForm } from './form.js';

const JSON_CONTENT_TYPE = 'application/json';

/** The warning Prometheus adds when `limit` cut a result. */
export const TRUNCATED_WARNING = 'results truncated due to limit';

/** Prometheus's AsStrings caps: at most 10 warnings and 10 infos, then a count of the rest. */
const MAX_WARNINGS = 10;
const MAX_INFOS = 10;

/** What an endpoint answers: encoded JSON data with its annotations, or nothing (204). */
export type ApiResult =
  | {
      /** In parts when some are bytes already (a query's encoded elements). */
      readonly data: string | BodyParts;
      readonly warnings?: readonly string[];
      readonly infos?: readonly string[];
    }
  | { readonly noContent: true };

export interface ApiContext {
  readonly req: Request;
  readonly form: Form;
  readonly tenant: string;
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal;
}

export type ApiEndpoint = (ctx: ApiContext) => Promise<ApiResult>;

/** Headers Prometheus's httputil.SetCORS adds when the request carries an Origin. */
const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Headers': 'Accept, Authorization, Content-Type, Origin',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Expose-Headers': 'Date',
  Vary: 'Origin',
};

export interface WrapDeps {
  readonly logger?: Logger | undefined;
}

/** Turns an endpoint into a route handler. */
export function wrap(endpoint: ApiEndpoint, deps: WrapDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    if (req.get('origin') !== undefined) {
      for (const [k, v] of Object.entries(CORS_HEADERS)) res.setHeader(k, v);
      res.setHeader('Access-Control-Allow-Origin', '*');
    }
    const controller = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) controller.abort();
    };
    res.once('close', onClose);
    try {
      const form = await parseForm(req);
      const result = await endpoint({
        req,
        form,
        tenant: tenantOf(res),
        signal: controller.signal,
      });
      if ('noContent' in result) {
        res.status(204).end();
        return;
      }
      writeBody(
        res,
        200,
        JSON_CONTENT_TYPE,
        successBody(result.data, result.warnings, result.infos),
      );
    } catch (err) {
      const apiErr = toApiError(err);
      if (isUncoded(err)) {
        deps.logger?.warn('query API request failed with an uncoded error', {
          path: req.path,
          err: apiErr.message,
          stack: err instanceof Error ? err.stack : undefined,
        });
      }
      writeBody(res, apiErr.status, JSON_CONTENT_TYPE, errorBody(apiErr.errorType, apiErr.message));
    } finally {
      res.off('close', onClose);
    }
  };
}

/**
 * Prometheus `Annotations.AsStrings(query, 10, 10)`: warnings (including `extraWarnings`,
 * which Prometheus adds to the same set) and infos, each capped with a closing count.
 */
export function annotationStrings(
  annotations: Annotations | undefined,
  extraWarnings: readonly string[] = [],
): { warnings: string[]; infos: string[] } {
  const allWarnings = [...(annotations?.warnings() ?? []), ...extraWarnings];
  return {
    warnings: capped(allWarnings, MAX_WARNINGS, 'warning'),
    infos: capped(annotations?.infos() ?? [], MAX_INFOS, 'info'),
  };
}

function capped(list: readonly string[], max: number, kind: string): string[] {
  // Go keeps annotations in a set: a repeated message counts once.
  const unique = [...new Set(list)];
  if (unique.length <= max) return unique;
  return [...unique.slice(0, max), `${unique.length - max} more ${kind} annotations omitted`];
}

/** The current time in ns from the clock (whole milliseconds, as Prometheus keeps them). */
export function nowNs(clock: Clock): bigint {
  return BigInt(Math.floor(clock.now())) * 1_000_000n;
}
