// The ingester's HTTP endpoints (reference: Ingester endpoint table and States table):
// flush, shutdown, mode, the direct push for debugging, and the per-tenant stats page.
// Statuses follow Cortex's handlers; every error goes through the server's error classes.
import type { Request } from 'express';
import { parseForm } from '../api/index.js';
import {
  DEFAULT_MAX_RECV_MSG_SIZE,
  WRITE_SOURCE_RULE,
  decodeRemoteWriteBody,
} from '../distributor/index.js';
import { RpcError } from '../runtime/index.js';
import {
  BadDataError,
  InternalError,
  UnavailableError,
  tenantOf,
  writeBody,
  type HttpServer,
} from '../server/index.js';
import type { Ingester, IngesterMode } from './ingester.js';
import { toPushSeries } from './ingester_rpc.js';
import { renderUserStatsPage, userStatsJson } from './user_stats_page.js';

const MODULE = 'ingester';
const TEXT = 'text/plain; charset=utf-8';

/** Registers `/ingester/{flush,shutdown,mode,push,all_user_stats}` and the legacy paths. */
export function registerIngesterRoutes(http: HttpServer, ingester: Ingester): void {
  http.registerRoute({
    methods: ['GET', 'POST'],
    path: '/ingester/flush',
    aliases: ['/flush'],
    module: MODULE,
    description: 'Trigger a flush of the in-memory time series data to blocks',
    tenant: false,
    handler: async (req, res) => {
      const form = await parseForm(req);
      if (form.error !== undefined)
        throw new BadDataError(`failed to parse HTTP request in flush handler: ${form.error}`);
      const tenants = form.getAll('tenant');
      const wait = form.getAll('wait')[0] === 'true';
      const run = ingester.flush(tenants.length === 0 ? undefined : tenants, wait);
      // The status does not reflect the flush result (reference): failures are logged.
      await run.catch(() => undefined);
      res.status(204).end();
    },
  });

  http.registerRoute({
    methods: ['GET', 'POST'],
    path: '/ingester/shutdown',
    aliases: ['/shutdown'],
    module: MODULE,
    description: 'Shut down the ingester: flush, leave the ring; the process stays alive',
    tenant: false,
    handler: async (_req, res) => {
      try {
        await ingester.shutdown();
      } catch (err) {
        throw new InternalError(
          `ingester shutdown finished with an error: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
      res.status(204).end();
    },
  });

  http.registerRoute({
    methods: ['GET', 'POST'],
    path: '/ingester/mode',
    module: MODULE,
    description: 'Set the ingester mode: ACTIVE or READONLY',
    tenant: false,
    handler: async (req, res) => {
      const form = await parseForm(req);
      if (form.error !== undefined)
        throw new BadDataError(`failed to parse HTTP request in mode handler: ${form.error}`);
      const raw = form.get('mode');
      const mode = raw.toUpperCase();
      if (mode !== 'ACTIVE' && mode !== 'READONLY')
        throw new BadDataError(
          raw === ''
            ? 'invalid mode input: parameter mode is missing (want ACTIVE or READONLY)'
            : `invalid mode input: ${JSON.stringify(raw)} (want ACTIVE or READONLY)`,
        );
      let state: string;
      try {
        state = await ingester.setMode(mode satisfies IngesterMode);
      } catch (err) {
        throw new BadDataError(
          `failed to change state: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      writeBody(res, 200, TEXT, `Ingester mode ${state}`);
    },
  });

  http.registerRoute({
    methods: ['POST'],
    path: '/ingester/push',
    aliases: ['/push'],
    module: MODULE,
    description: 'Push samples in the remote-write format straight into this ingester (debugging)',
    tenant: true,
    handler: async (req, res) => {
      const tenant = tenantOf(res);
      const body = await readBody(req, DEFAULT_MAX_RECV_MSG_SIZE);
      const data = decodeRemoteWriteBody(
        body,
        { contentType: req.get('content-type'), contentEncoding: req.get('content-encoding') },
        { maxRecvMsgSize: DEFAULT_MAX_RECV_MSG_SIZE },
      );
      let result;
      try {
        result = await ingester.push(
          tenant,
          toPushSeries(data),
          data.source === WRITE_SOURCE_RULE ? 'rule' : 'api',
          data.metadata,
        );
      } catch (err) {
        throw fromRpcError(err);
      }
      // Accepted samples are committed; the first rejection is the answer, as Cortex.
      if (result.firstError !== undefined) throw result.firstError;
      res.status(200).end();
    },
  });

  http.registerRoute({
    methods: ['GET'],
    path: '/ingester/all_user_stats',
    module: MODULE,
    description: 'Per-tenant series and ingestion rates on this ingester',
    tenant: false,
    handler: (req, res) => {
      const stats = ingester.allUserStats();
      if ((req.get('accept') ?? '').includes('json')) {
        writeBody(res, 200, 'application/json', `${JSON.stringify(userStatsJson(stats))}\n`);
        return;
      }
      writeBody(res, 200, 'text/html; charset=utf-8', renderUserStatsPage(stats, ingester.nowMs()));
    },
  });
}

/** The refusals of the Ingester (RpcErrors) as the HTTP errors a client of /push gets. */
function fromRpcError(err: unknown): unknown {
  if (!(err instanceof RpcError)) return err;
  if (err.code === 'unavailable') return new UnavailableError(err.message);
  if (err.code === 'invalid_argument') return new BadDataError(err.message);
  return err;
}

/**
 * The raw request body. Past `maxBytes` the rest is drained, not kept (stopping early would
 * destroy the stream the answer goes out on), and the request is refused as the decoder
 * refuses an oversized body.
 */
async function readBody(req: Request, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size <= maxBytes) chunks.push(buf);
  }
  if (size > maxBytes)
    throw new BadDataError(`received message larger than max (${size} vs ${maxBytes})`);
  return new Uint8Array(Buffer.concat(chunks));
}
