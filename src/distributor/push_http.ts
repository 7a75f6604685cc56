/**
 * The distributor's HTTP routes: remote-write push (`/api/v1/push`, `<legacy prefix>/push`
 * and the neutral `/api/mon/push`), the all-user-stats page and the HA tracker page.
 */
import type { Request, Response } from 'express';
import {
  BadDataError,
  registerPrefixedRoute,
  tenantOf,
  writeBody,
  writeText,
  type HttpServer,
} from '../server/index.js';
import type { Distributor } from './distributor.js';
import { renderHATrackerPage } from './ha_tracker_page.js';
import { decodeRemoteWriteBody } from './remote_write_body.js';
import { renderUserStatsPage } from './user_stats_page.js';
import { WRITE_SOURCE_RULE } from './write_request.js';

const MODULE = 'distributor';

export function registerDistributorRoutes(http: HttpServer, distributor: Distributor): void {
  const push = async (req: Request, res: Response): Promise<void> => {
    const tenant = tenantOf(res);
    const limit = distributor.config.maxRecvMsgSize;
    const body = await readLimitedBody(req, limit);
    const write = decodeRemoteWriteBody(
      body,
      { contentType: req.get('content-type'), contentEncoding: req.get('content-encoding') },
      { maxRecvMsgSize: limit },
      distributor.labelsCache,
    );
    const outcome = await distributor.push(
      tenant,
      write,
      write.source === WRITE_SOURCE_RULE ? 'rule' : 'api',
    );
    if (outcome.status === 202) writeText(res, 202, outcome.message);
    else res.status(200).end();
  };
  http.registerRoute({
    methods: ['POST'],
    path: '/api/v1/push',
    module: MODULE,
    description: 'Remote write endpoint (protobuf + snappy)',
    tenant: true,
    handler: push,
  });
  registerPrefixedRoute(http, 'legacy', {
    methods: ['POST'],
    path: '/push',
    module: MODULE,
    description: 'Remote write endpoint (legacy path)',
    tenant: true,
    hidden: true,
    handler: push,
  });

  http.registerRoute({
    methods: ['GET'],
    path: '/distributor/all_user_stats',
    aliases: ['/all_user_stats'],
    module: MODULE,
    description: 'Usage statistics: series and ingestion rate per tenant',
    tenant: false,
    handler: async (req, res) => {
      const controller = new AbortController();
      res.once('close', () => controller.abort());
      const all = await distributor.allUserStats(controller.signal);
      const accept = req.get('accept') ?? '';
      if (accept.includes('json')) {
        writeBody(res, 200, 'application/json', `${JSON.stringify(all.stats)}\n`);
        return;
      }
      writeBody(
        res,
        200,
        'text/html; charset=utf-8',
        renderUserStatsPage(distributor.clock.now(), all),
      );
    },
  });

  http.registerRoute({
    methods: ['GET'],
    path: '/distributor/ha_tracker',
    aliases: ['/ha-tracker'],
    module: MODULE,
    description: 'HA tracker status: elected replica per tenant and cluster',
    tenant: false,
    handler: (_req, res) => {
      const tracker = distributor.haTracker;
      const cfg = distributor.config.haTracker;
      writeBody(
        res,
        200,
        'text/html; charset=utf-8',
        renderHATrackerPage({
          nowMs: distributor.clock.now(),
          updateTimeoutMs: tracker?.updateTimeout ?? cfg.updateTimeoutMs,
          failoverTimeoutMs: tracker?.failoverTimeout ?? cfg.failoverTimeoutMs,
          elected: tracker?.electedReplicas() ?? [],
        }),
      );
    },
  });
}

/**
 * Reads the request body, keeping at most `limit` bytes: past it the rest is drained (so the
 * connection can carry the answer) and the push fails with Cortex's 400 text.
 */
async function readLimitedBody(req: Request, limit: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    size += buf.length;
    if (size <= limit) chunks.push(buf);
  }
  if (size > limit)
    throw new BadDataError(`received message larger than max (${size} vs ${limit})`);
  const body = Buffer.concat(chunks);
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}
