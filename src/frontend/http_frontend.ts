/**
 * The query-frontend's HTTP face: the querier's query API paths (both prefixes), each
 * forwarded through the queue to a querier, with `query_range` going through the range
 * middlewares (align, split, results cache, shards, retries) first. Statuses and bodies are
 * the querier's: a querier error is sent on byte for byte, a request refused before any
 * querier saw it gets the querier's own message (parse errors) or the queue's (429, 5xx).
 */
import type { Request, Response } from 'express';
import {
  errorBody,
  formFromParts,
  hasFormBody,
  MAX_FORM_BYTES,
  toApiError,
  type Form,
} from '../api/index.js';
import type { Logger } from '../runtime/index.js';
import type { HttpMessage } from '../scheduler/index.js';
import {
  HttpError,
  registerPrefixedRoute,
  tenantOf,
  writeBody,
  type ApiPrefix,
  type HttpMethod,
  type HttpServer,
  type RouteHandler,
} from '../server/index.js';
import type { RangeHandler } from './handler.js';
import {
  encodeInstantResponse,
  shardedInstantRequest,
  type InstantSharding,
} from './instant_query.js';
import { QuerierError } from './querier_error.js';
import { parseRangeRequest } from './range_request.js';
import { encodeRangeResponse } from './range_response.js';
import type { QueryStats } from './query_stats.js';

/** Sends one HTTP request to a querier through the queue and resolves with its answer. */
export type RoundTrip = (
  tenant: string,
  request: HttpMessage,
  signal: AbortSignal,
) => Promise<HttpMessage>;

export interface FrontendHttpDeps {
  readonly roundTrip: RoundTrip;
  /** The range middlewares in front of `roundTrip` (see querierRangeHandler). */
  readonly rangeHandler: RangeHandler;
  readonly stats: QueryStats;
  readonly logger: Logger;
  /** `-frontend.max-body-size`. */
  readonly maxBodyBytes: number;
  /** Request headers the range path forwards to the querier (e.g. the engine header). */
  readonly forwardHeaders: readonly string[];
  /** Shards instant queries (instant_query.ts); without it they are all forwarded whole. */
  readonly instantSharding?: InstantSharding;
}

const GET_POST: readonly HttpMethod[] = ['GET', 'POST'];
const GET: readonly HttpMethod[] = ['GET'];
const JSON_TYPE = 'application/json';

/** The querier API paths the frontend forwards as they come (`query_range`, `query` aside). */
const FORWARDED: readonly { path: string; methods: readonly HttpMethod[] }[] = [
  { path: '/api/v1/query_exemplars', methods: GET_POST },
  { path: '/api/v1/format_query', methods: GET_POST },
  { path: '/api/v1/parse_query', methods: GET_POST },
  { path: '/api/v1/series', methods: GET_POST },
  { path: '/api/v1/labels', methods: GET_POST },
  { path: '/api/v1/label/:name/values', methods: GET },
  { path: '/api/v1/metadata', methods: GET },
  { path: '/api/v1/status/buildinfo', methods: GET },
];

/** Headers that describe one hop, not the request (never forwarded either way). */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'accept-encoding',
  'content-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
]);

export function registerFrontendRoutes(http: HttpServer, deps: FrontendHttpDeps): void {
  const prefixes: readonly ApiPrefix[] = ['prometheus', 'legacy'];
  const forward = forwardHandler(deps);
  const range = rangeHandler(deps);
  const instant = instantHandler(deps);
  for (const which of prefixes) {
    const legacy = which === 'legacy' ? ' (legacy path)' : '';
    registerPrefixedRoute(http, which, {
      methods: GET_POST,
      path: '/api/v1/query_range',
      module: 'query-frontend',
      description: `PromQL range query: aligned, split, cached and sharded, then queued for the queriers${legacy}`,
      tenant: true,
      handler: range,
    });
    registerPrefixedRoute(http, which, {
      methods: GET_POST,
      path: '/api/v1/query',
      module: 'query-frontend',
      description: `PromQL instant query: sharded when the tenant has a shard size, then queued for the queriers${legacy}`,
      tenant: true,
      handler: instant,
    });
    for (const e of FORWARDED) {
      registerPrefixedRoute(http, which, {
        methods: e.methods,
        path: e.path,
        module: 'query-frontend',
        description: `Queued for the queriers${legacy}`,
        tenant: true,
        handler: forward,
      });
    }
  }
  http.registerRoute({
    methods: GET,
    path: '/api/v1/user_stats',
    module: 'query-frontend',
    description: "The tenant's ingestion rate and series count, queued for the queriers",
    tenant: true,
    handler: forward,
  });
}

/** Any other API request: queued as it came, answered as the querier answered. */
function forwardHandler(deps: FrontendHttpDeps): RouteHandler {
  return async (req, res) => {
    await forward(deps, req, res, await readRaw(req, deps.maxBodyBytes));
  };
}

async function forward(
  deps: FrontendHttpDeps,
  req: Request,
  res: Response,
  body: Uint8Array,
): Promise<void> {
  const tenant = tenantOf(res);
  const started = deps.stats.start();
  const answer = await deps.roundTrip(
    tenant,
    { method: req.method, url: req.originalUrl, headers: forwardable(req), body },
    closeSignal(res),
  );
  const status = answer.status ?? 502;
  deps.stats.finish(started, { tenant, path: req.path, form: undefined, status });
  writeAnswer(res, answer);
}

/** `/api/v1/query`: sharded as a one-step range query when it can be, else forwarded. */
function instantHandler(deps: FrontendHttpDeps): RouteHandler {
  return async (req, res) => {
    const raw = await readRaw(req, deps.maxBodyBytes);
    const sharding = deps.instantSharding;
    const form = sharding === undefined ? undefined : requestForm(req, raw);
    // A form the querier cannot parse gets the querier's own error.
    if (sharding !== undefined && form !== undefined && form.error === undefined) {
      const context = {
        tenantIds: [tenantOf(res)],
        headers: headerMap(req),
        forwardHeaders: deps.forwardHeaders,
      };
      const request = shardedInstantRequest(form, context, sharding);
      if (request !== undefined) {
        await answerJson(deps, req, res, form, async (signal) =>
          encodeInstantResponse(await sharding.handler(request, signal), request.start),
        );
        return;
      }
    }
    await forward(deps, req, res, raw);
  };
}

function rangeHandler(deps: FrontendHttpDeps): RouteHandler {
  return async (req, res) => {
    const form = requestForm(req, await readRaw(req, deps.maxBodyBytes));
    await answerJson(deps, req, res, form, async (signal) => {
      const request = parseRangeRequest(form, {
        tenantIds: [tenantOf(res)],
        headers: headerMap(req),
        forwardHeaders: deps.forwardHeaders,
      });
      return encodeRangeResponse(await deps.rangeHandler(request, signal));
    });
  };
}

/** The query form of a request: the URL's parameters and a form body (as the querier reads them). */
function requestForm(req: Request, raw: Uint8Array): Form {
  const q = req.originalUrl.indexOf('?');
  return formFromParts(
    hasFormBody(req.method, req.get('content-type'))
      ? raw.length > MAX_FORM_BYTES
        ? { error: 'http: POST too large' }
        : { body: Buffer.from(raw).toString('latin1') }
      : undefined,
    q < 0 ? '' : req.originalUrl.slice(q + 1),
  );
}

/**
 * Writes what `answer` encodes (200), or its error as the querier would have written it,
 * and records the query's statistics.
 */
async function answerJson(
  deps: FrontendHttpDeps,
  req: Request,
  res: Response,
  form: Form,
  answer: (signal: AbortSignal) => Promise<string | Uint8Array>,
): Promise<void> {
  const tenant = tenantOf(res);
  const started = deps.stats.start();
  let status = 200;
  try {
    writeBody(res, 200, JSON_TYPE, await answer(closeSignal(res)));
  } catch (err) {
    if (err instanceof QuerierError) {
      status = err.status;
      writeBody(res, err.status, JSON_TYPE, err.body);
    } else {
      const apiErr = toApiError(err);
      status = apiErr.status;
      writeBody(res, apiErr.status, JSON_TYPE, errorBody(apiErr.errorType, apiErr.message));
    }
  } finally {
    deps.stats.finish(started, { tenant, path: req.path, form, status });
  }
}

async function readRaw(req: Request, max: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    size += buf.length;
    if (size <= max) chunks.push(buf);
  }
  if (size > max)
    throw new HttpError(
      'payload_too_large',
      `request body is ${size} bytes, larger than the limit of ${max}`,
    );
  return Buffer.concat(chunks);
}

/** Aborts when the client goes away before the answer is written. */
function closeSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

function forwardable(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (HOP_HEADERS.has(name) || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function headerMap(req: Request): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out.set(name, Array.isArray(value) ? value : [value]);
  }
  return out;
}

function writeAnswer(res: Response, answer: HttpMessage): void {
  for (const [name, value] of Object.entries(answer.headers)) {
    if (!HOP_HEADERS.has(name) && name !== 'content-type') res.setHeader(name, value);
  }
  writeBody(
    res,
    answer.status ?? 502,
    answer.headers['content-type'] ?? 'text/plain; charset=utf-8',
    Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength),
  );
}
