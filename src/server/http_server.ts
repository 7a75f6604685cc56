/**
 * The HTTP API server: an express 5 app whose routes are registered by the modules running in
 * this process. Each route declares a description (for the `/` index page) and whether it
 * acts for a tenant; the server resolves the tenant, instruments every request with Cortex's
 * metrics and turns errors into responses through the one error table (errors.ts).
 *
 * The server never listens itself: `handler` is handed to a listener (the real runtime's
 * `listenHttp`) so the same app can be driven without sockets.
 */
import express, {
  type Express,
  type NextFunction,
  type Request,
  type Response,
  type Router,
} from 'express';
import type { Clock, Logger, MetricsRegistry } from '../runtime/index.js';
import type { ApiPrefixes } from './prefixes.js';
import { MethodNotAllowedError, NotFoundError, toHttpError } from './errors.js';
import { RequestMetrics, UNMATCHED_ROUTE_LABEL, routeLabel } from './request_metrics.js';
import { TENANT_HEADER, resolveTenant } from './tenant.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

/** A route handler. Throwing (or rejecting with) an HttpError sends its status and message. */
export type RouteHandler = (req: Request, res: Response) => void | Promise<void>;

export interface RouteSpec {
  readonly methods: readonly HttpMethod[];
  /** Express 5 path syntax, e.g. `/api/v1/label/:name/values`. */
  readonly path: string;
  /** Further paths serving the same handler (legacy and neutral spellings); not listed separately. */
  readonly aliases?: readonly string[];
  /** The module that owns the route; the index page groups routes by it. */
  readonly module: string;
  /** One line for the index page. */
  readonly description: string;
  /**
   * The route acts for a tenant: with auth enabled it requires `X-Scope-OrgID` (401 when
   * missing, 400 when invalid); handlers read the tenant with `tenantOf(res)`.
   */
  readonly tenant: boolean;
  /** Left out of the index page (internal endpoints not meant for end users). */
  readonly hidden?: boolean;
  readonly handler: RouteHandler;
}

export type RegisteredRoute = Omit<RouteSpec, 'handler' | 'aliases' | 'hidden'> & {
  readonly aliases: readonly string[];
  readonly hidden: boolean;
};

export interface HttpServerConfig {
  /** `-auth.enabled`: tenant routes require `X-Scope-OrgID`; otherwise they act as `fake`. */
  readonly authEnabled: boolean;
  /** The configured API prefixes, used by `registerPrefixedRoute`. */
  readonly prefixes: ApiPrefixes;
}

export interface HttpServerDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
}

/** All the routes registered on one path, one handler per method. */
interface PathEntry {
  readonly path: string;
  readonly label: string;
  readonly byMethod: Map<string, RouteSpec>;
}

const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

export class HttpServer {
  /** The request listener to hand to an HTTP listener. */
  readonly handler: Express;
  readonly metrics: RequestMetrics;
  private readonly router: Router;
  private readonly paths = new Map<string, PathEntry>();
  private readonly registered: RegisteredRoute[] = [];

  constructor(
    readonly config: HttpServerConfig,
    private readonly deps: HttpServerDeps,
  ) {
    this.metrics = new RequestMetrics(deps.metrics);
    const app = express();
    app.disable('x-powered-by');
    // Weak ETags and 304s would make scrapers and `curl` see empty bodies; Cortex sends none.
    app.set('etag', false);
    app.use((req, res, next) => this.instrument(req, res, next));
    // Routes go on a router mounted before the fallbacks so that routes registered later (by
    // modules initialised after the server) still run before the 404 handler.
    this.router = express.Router();
    app.use(this.router);
    app.use((req: Request) => {
      throw new NotFoundError(`page not found: ${req.method} ${req.path}`);
    });
    app.use((err: unknown, req: Request, res: Response, next: NextFunction) =>
      this.handleError(err, req, res, next),
    );
    this.handler = app;
  }

  /** Registers a route (and its aliases). Registering a method on a path twice throws. */
  registerRoute(spec: RouteSpec): void {
    if (spec.methods.length === 0) throw new Error(`route ${spec.path}: no HTTP methods given`);
    for (const m of spec.methods) {
      if (!HTTP_METHODS.includes(m))
        throw new Error(`route ${spec.path}: unsupported HTTP method "${String(m)}"`);
    }
    const paths = [spec.path, ...(spec.aliases ?? [])];
    for (const path of paths) {
      if (!path.startsWith('/')) throw new Error(`route path must start with '/': got "${path}"`);
      const entry = this.paths.get(path);
      for (const m of spec.methods) {
        const existing = entry?.byMethod.get(m);
        if (existing !== undefined) {
          throw new Error(
            `route ${m} ${path} registered twice: by ${existing.module} and by ${spec.module}`,
          );
        }
      }
    }
    for (const path of paths) {
      let entry = this.paths.get(path);
      if (entry === undefined) {
        entry = { path, label: routeLabel(path), byMethod: new Map() };
        this.paths.set(path, entry);
        const e = entry;
        this.router.all(path, (req, res) => this.dispatch(e, req, res));
      }
      for (const m of spec.methods) entry.byMethod.set(m, spec);
    }
    this.registered.push({
      methods: spec.methods,
      path: spec.path,
      aliases: spec.aliases ?? [],
      module: spec.module,
      description: spec.description,
      tenant: spec.tenant,
      hidden: spec.hidden ?? false,
    });
  }

  /** Every registered route, in registration order. */
  routes(): readonly RegisteredRoute[] {
    return this.registered;
  }

  private async dispatch(entry: PathEntry, req: Request, res: Response): Promise<void> {
    res.locals['routeLabel'] = entry.label;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const spec = entry.byMethod.get(method);
    if (spec === undefined) {
      const allowed = [...entry.byMethod.keys()];
      throw new MethodNotAllowedError(
        `method ${req.method} not allowed on ${entry.path}: allowed ${allowed.join(', ')}`,
        allowed,
      );
    }
    if (spec.tenant) {
      res.locals['tenant'] = resolveTenant(req.get(TENANT_HEADER), this.config.authEnabled);
    }
    await spec.handler(req, res);
  }

  private instrument(req: Request, res: Response, next: NextFunction): void {
    const { clock } = this.deps;
    const start = clock.now();
    let observed = false;
    const observe = (): void => {
      if (observed) return;
      observed = true;
      const route: unknown = res.locals['routeLabel'];
      this.metrics.duration.observe(
        {
          method: req.method,
          route: typeof route === 'string' ? route : UNMATCHED_ROUTE_LABEL,
          status_code: String(res.statusCode),
          ws: String(isWebSocketUpgrade(req)),
        },
        Math.max(0, clock.now() - start) / 1000,
      );
    };
    res.once('finish', observe);
    res.once('close', observe);
    next();
  }

  private handleError(err: unknown, req: Request, res: Response, _next: NextFunction): void {
    const httpErr = toHttpError(err);
    const route =
      typeof res.locals['routeLabel'] === 'string'
        ? res.locals['routeLabel']
        : UNMATCHED_ROUTE_LABEL;
    let status: number;
    let message: string;
    if (httpErr !== undefined) {
      status = httpErr.status;
      message = httpErr.message;
      if (httpErr instanceof MethodNotAllowedError)
        res.setHeader('Allow', httpErr.allowed.join(', '));
    } else {
      status = 500;
      message = `internal server error: ${errorMessage(err)}`;
      this.metrics.unhandledErrors.inc({ route });
      this.deps.logger.error('unhandled error serving HTTP request', {
        method: req.method,
        path: req.path,
        route,
        err: errorMessage(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    if (res.headersSent) {
      // The status line is gone; all we can do is cut the response short so the client
      // sees a truncated body rather than a silently incomplete one.
      this.deps.logger.warn('error after response headers were sent; closing the connection', {
        path: req.path,
        status,
        err: message,
      });
      res.destroy();
      return;
    }
    writeText(res, status, message);
  }
}

/** Sends a plain-text body the way Go's `http.Error` does (message plus newline). */
export function writeText(res: Response, status: number, text: string): void {
  res.status(status);
  res.setHeader('Content-Type', TEXT_CONTENT_TYPE);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(text.endsWith('\n') ? text : `${text}\n`);
}

/** Sends a body with exactly the given content type (express's `send` would rewrite charsets). */
export function writeBody(
  res: Response,
  status: number,
  contentType: string,
  body: string | Uint8Array,
): void {
  res.status(status);
  res.setHeader('Content-Type', contentType);
  res.end(body);
}

/**
 * The tenant the current request acts for. Only valid inside a route registered with
 * `tenant: true`; calling it elsewhere is a programming error.
 */
export function tenantOf(res: Response): string {
  const tenant: unknown = res.locals['tenant'];
  if (typeof tenant !== 'string') {
    throw new Error('tenantOf() called in a route not registered with tenant: true');
  }
  return tenant;
}

function isWebSocketUpgrade(req: Request): boolean {
  return (req.get('upgrade') ?? '').toLowerCase() === 'websocket';
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
