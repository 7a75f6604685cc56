/**
 * Helpers of the compactor's end-to-end test (integration/compactor-minio.test.ts):
 *
 * - an S3 gate, a loopback reverse proxy in front of MinIO that one compactor talks to, which
 *   can hold a chosen PUT forever (the compactor is then caught in the middle of an upload,
 *   at a known point, to be SIGKILLed there);
 * - a bucket watcher that lists the bucket every few hundred milliseconds and keeps the
 *   history of every block directory (its meta.json, whether it was seen deletion-marked,
 *   whether it was seen without meta.json, when it went), so the test can check what
 *   happened to blocks that are gone by the time it looks;
 * - a reader of a tenant's block directories in their current state.
 *
 * Both look at MinIO through the test's own client (bucket-view.ts), never Strata's code.
 */
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type BucketObject, type BucketView, type ShippedMeta } from './bucket-view.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** One request the gate is asked about: method and object name (bucket left out). */
export interface GateRequest {
  readonly method: string;
  /** The object name (`<tenant>/<block>/index`), '' for bucket-level calls. */
  readonly object: string;
}

export interface S3Gate {
  /** `127.0.0.1:<port>`, to use as `-experimental.tsdb.s3.endpoint`. */
  readonly endpoint: string;
  /**
   * Decides per request: true holds it (never forwarded, never answered, until `dropHeld`
   * or `close`). Unset: everything is forwarded.
   */
  hold: ((r: GateRequest) => boolean) | undefined;
  /** Requests held so far. */
  readonly held: readonly GateRequest[];
  /** Closes the connections of the held requests. */
  dropHeld(): void;
  close(): Promise<void>;
}

/**
 * A reverse proxy to MinIO (path-style S3 on `upstream`, `host:port`). Headers go upstream
 * unchanged, Host included: the client signed its requests for the gate's address, and
 * MinIO checks the signature against the Host it receives, so they stay valid.
 */
export async function startS3Gate(upstream: string, bucket: string): Promise<S3Gate> {
  const [host, port] = upstream.split(':');
  const held: { req: GateRequest; res: ServerResponse; inc: IncomingMessage }[] = [];
  const gate: S3Gate = {
    endpoint: '',
    hold: undefined,
    get held() {
      return held.map((h) => h.req);
    },
    dropHeld: () => {
      for (const h of held.splice(0)) {
        h.inc.socket.destroy();
        h.res.socket?.destroy();
      }
    },
    close: async () => {
      gate.dropHeld();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://gate').pathname);
    const prefix = `/${bucket}/`;
    const object = path.startsWith(prefix) ? path.slice(prefix.length) : '';
    const r: GateRequest = { method: req.method ?? 'GET', object };
    if (gate.hold?.(r) === true) {
      held.push({ req: r, res, inc: req });
      return;
    }
    const up = request(
      {
        hostname: host,
        port: Number(port),
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`gate: ${err.message}\n`);
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const listenPort = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return Object.assign(gate, { endpoint: `127.0.0.1:${listenPort}` });
}

/** A block directory as the bucket holds it now. */
export interface BlockDir {
  readonly tenant: string;
  readonly block: string;
  /** Object names relative to the block directory. */
  readonly files: readonly string[];
  readonly complete: boolean;
  /** A deletion mark beside the block or under `<tenant>/markers/`. */
  readonly marked: boolean;
}

/** Every block directory of the bucket now, per tenant (objects of one listing). */
export function blockDirs(objects: readonly BucketObject[]): Map<string, BlockDir[]> {
  const files = new Map<string, string[]>();
  const globalMarks = new Set<string>();
  for (const o of objects) {
    const [tenant, dir, ...rest] = o.name.split('/');
    if (tenant === undefined || dir === undefined || rest.length === 0) continue;
    if (dir === 'markers') {
      const m = /^([0-9A-HJKMNP-TV-Z]{26})-deletion-mark\.json$/.exec(rest.join('/'));
      if (m !== null) globalMarks.add(`${tenant}/${m[1]}`);
      continue;
    }
    if (!ULID.test(dir)) continue;
    const key = `${tenant}/${dir}`;
    const list = files.get(key) ?? [];
    list.push(rest.join('/'));
    files.set(key, list);
  }
  const out = new Map<string, BlockDir[]>();
  for (const [key, names] of files) {
    const [tenant = '', block = ''] = key.split('/');
    const list = out.get(tenant) ?? [];
    list.push({
      tenant,
      block,
      files: names.sort(),
      complete: names.includes('meta.json'),
      marked: names.includes('deletion-mark.json') || globalMarks.has(key),
    });
    out.set(tenant, list);
  }
  for (const list of out.values()) list.sort((a, b) => (a.block < b.block ? -1 : 1));
  return out;
}

/** What the watcher saw of one block directory over its life. */
export interface BlockHistory {
  readonly tenant: string;
  readonly block: string;
  /** meta.json, read the first time it was listed. */
  meta?: ShippedMeta;
  seenMarked: boolean;
  /** Seen without meta.json at some listing (an upload in progress, or a partial block). */
  seenPartial: boolean;
  /** Gone from the bucket (every object) at the last listing. */
  gone: boolean;
}

/**
 * Lists the bucket every `everyMs` until stopped and folds each listing into a per-block
 * history. Listing errors are kept (the last one) and retried at the next tick.
 */
export class BucketWatcher {
  readonly blocks = new Map<string, BlockHistory>();
  lastError: unknown;
  private timer: NodeJS.Timeout | undefined;
  /** The listing in progress (listings never overlap). */
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly view: BucketView,
    private readonly everyMs = 200,
  ) {}

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      void this.poll()
        .catch((err: unknown) => {
          this.lastError = err;
        })
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.everyMs);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.chain.catch(() => undefined);
  }

  /** One listing folded in, after the one in progress (also what the timer runs). */
  poll(): Promise<void> {
    const next = this.chain.catch(() => undefined).then(() => this.fold());
    this.chain = next;
    return next;
  }

  private async fold(): Promise<void> {
    const now = blockDirs(await this.view.list());
    const present = new Set<string>();
    for (const dirs of now.values()) {
      for (const d of dirs) {
        const key = `${d.tenant}/${d.block}`;
        present.add(key);
        let h = this.blocks.get(key);
        if (h === undefined) {
          h = {
            tenant: d.tenant,
            block: d.block,
            seenMarked: false,
            seenPartial: false,
            gone: false,
          };
          this.blocks.set(key, h);
        }
        h.gone = false;
        if (d.marked) h.seenMarked = true;
        if (!d.complete) h.seenPartial = true;
        if (d.complete && h.meta === undefined) {
          try {
            h.meta = JSON.parse(
              (await this.view.get(`${key}/meta.json`)).toString('utf8'),
            ) as ShippedMeta;
          } catch {
            // Deleted between the listing and the read: meta.json goes first.
          }
        }
      }
    }
    for (const [key, h] of this.blocks) if (!present.has(key)) h.gone = true;
  }

  /** The histories of one tenant's blocks. */
  of(tenant: string): BlockHistory[] {
    return [...this.blocks.values()].filter((h) => h.tenant === tenant);
  }
}
