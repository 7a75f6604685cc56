import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { newMetricsRegistry, type MetricsRegistry } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { ConflictError } from './errors.js';
import { HttpServer, tenantOf, writeText } from './http_server.js';
import { registerIndexRoute } from './index_page.js';
import { registerPrefixedRoute } from './prefixes.js';
import { routeLabel } from './request_metrics.js';
import { CapturingLogger } from '../runtime/testing/index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** Serves `handler` on a loopback port for one test. */
async function serve(handler: HttpServer['handler']): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Fixture {
  server: HttpServer;
  logger: CapturingLogger;
  registry: MetricsRegistry;
  clock: ManualClock;
}

function makeServer(
  authEnabled = true,
  prefixes = { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
): Fixture {
  const logger = new CapturingLogger();
  const registry = newMetricsRegistry();
  const clock = new ManualClock(1_000);
  const server = new HttpServer({ authEnabled, prefixes }, { clock, logger, metrics: registry });
  return { server, logger, registry, clock };
}

describe('HttpServer routing', () => {
  it('serves registered routes and their aliases', async () => {
    const { server } = makeServer();
    server.registerRoute({
      methods: ['GET', 'POST'],
      path: '/hello',
      aliases: ['/hi'],
      module: 'test',
      description: 'says hello',
      tenant: false,
      handler: (req, res) => writeText(res, 200, `hello ${req.method}`),
    });
    const url = await serve(server.handler);
    expect(await (await fetch(`${url}/hello`)).text()).toBe('hello GET\n');
    expect(await (await fetch(`${url}/hi`, { method: 'POST' })).text()).toBe('hello POST\n');
    const head = await fetch(`${url}/hello`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('answers 404 with a plain-text message for unknown paths', async () => {
    const { server } = makeServer();
    const url = await serve(server.handler);
    const res = await fetch(`${url}/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('page not found: GET /nope\n');
  });

  it('answers 405 naming the allowed methods', async () => {
    const { server } = makeServer();
    server.registerRoute({
      methods: ['GET'],
      path: '/only-get',
      module: 't',
      description: 'd',
      tenant: false,
      handler: (_q, r) => writeText(r, 200, 'ok'),
    });
    const url = await serve(server.handler);
    const res = await fetch(`${url}/only-get`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(await res.text()).toContain('method DELETE not allowed on /only-get');
  });

  it('refuses to register the same method and path twice, naming both owners', () => {
    const { server } = makeServer();
    const spec = {
      methods: ['GET'] as const,
      path: '/x',
      module: 'a',
      description: 'd',
      tenant: false,
      handler: () => undefined,
    };
    server.registerRoute(spec);
    expect(() => server.registerRoute({ ...spec, module: 'b' })).toThrow(
      'route GET /x registered twice: by a and by b',
    );
    // Another method on the same path is fine.
    server.registerRoute({ ...spec, methods: ['POST'] });
  });

  it('turns coded errors into their status and message', async () => {
    const { server } = makeServer();
    server.registerRoute({
      methods: ['GET'],
      path: '/busy',
      module: 't',
      description: 'd',
      tenant: false,
      handler: () => Promise.reject(new ConflictError('already compacting tenant "a"')),
    });
    const url = await serve(server.handler);
    const res = await fetch(`${url}/busy`);
    expect(res.status).toBe(409);
    expect(await res.text()).toBe('already compacting tenant "a"\n');
  });

  it('logs, counts and answers 500 for unhandled errors', async () => {
    const { server, logger, registry } = makeServer();
    server.registerRoute({
      methods: ['GET'],
      path: '/boom',
      module: 't',
      description: 'd',
      tenant: false,
      handler: () => {
        throw new TypeError('cannot read x of undefined');
      },
    });
    const url = await serve(server.handler);
    const res = await fetch(`${url}/boom`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('internal server error: cannot read x of undefined\n');
    expect(logger.find('unhandled error', 'error')).toHaveLength(1);
    expect(logger.find('unhandled error')[0]?.fields['route']).toBe('boom');
    const metric = await registry.getSingleMetric('strata_http_unhandled_errors_total')?.get();
    expect(metric?.values).toEqual([{ value: 1, labels: { route: 'boom' } }]);
  });

  it('records cortex_request_duration_seconds with Cortex labels', async () => {
    const { server, registry } = makeServer();
    server.registerRoute({
      methods: ['GET'],
      path: '/api/v1/label/:name/values',
      module: 't',
      description: 'd',
      tenant: false,
      handler: (_q, r) => writeText(r, 200, 'ok'),
    });
    const url = await serve(server.handler);
    await fetch(`${url}/api/v1/label/job/values`);
    await fetch(`${url}/missing`);
    const metric = await registry.getSingleMetric('cortex_request_duration_seconds')?.get();
    const counts = (metric?.values ?? []).filter(
      (v) => (v as { metricName?: string }).metricName === 'cortex_request_duration_seconds_count',
    );
    expect(counts.map((c) => c.labels)).toEqual([
      { method: 'GET', route: 'api_v1_label_name_values', status_code: '200', ws: 'false' },
      { method: 'GET', route: 'notfound', status_code: '404', ws: 'false' },
    ]);
  });
});

describe('routeLabel', () => {
  it('follows weaveworks MakeLabelValue', () => {
    expect(routeLabel('/')).toBe('root');
    expect(routeLabel('/api/prom/api/v1/query_range')).toBe('api_prom_api_v1_query_range');
    expect(routeLabel('/debug/pprof/')).toBe('debug_pprof');
    expect(routeLabel('/ingester/all_user_stats')).toBe('ingester_all_user_stats');
    expect(routeLabel('/api/v1/Rules/:namespace')).toBe('api_v1_rules_namespace');
  });
});

describe('tenancy', () => {
  function tenantServer(authEnabled: boolean): HttpServer {
    const { server } = makeServer(authEnabled);
    server.registerRoute({
      methods: ['GET'],
      path: '/whoami',
      module: 't',
      description: 'd',
      tenant: true,
      handler: (_q, res) => writeText(res, 200, tenantOf(res)),
    });
    server.registerRoute({
      methods: ['GET'],
      path: '/open',
      module: 't',
      description: 'd',
      tenant: false,
      handler: (_q, res) => writeText(res, 200, 'open'),
    });
    return server;
  }

  it('passes the X-Scope-OrgID tenant to the handler', async () => {
    const url = await serve(tenantServer(true).handler);
    const res = await fetch(`${url}/whoami`, { headers: { 'X-Scope-OrgID': 'team-a' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('team-a\n');
  });

  it('answers 401 when the header is missing', async () => {
    const url = await serve(tenantServer(true).handler);
    const res = await fetch(`${url}/whoami`);
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('no org id: the X-Scope-OrgID header is required\n');
  });

  it('answers 400 for each invalid tenant ID form', async () => {
    const url = await serve(tenantServer(true).handler);
    const cases: [string, string][] = [
      ['team/a', "tenant ID 'team/a' contains unsupported character '/'"],
      ['a|b', "tenant ID 'a|b' contains unsupported character '|'"],
      ['x'.repeat(151), 'tenant ID is too long: max 150 characters, got 151'],
      ['.', "tenant ID is '.' or '..'"],
      ['..', "tenant ID is '.' or '..'"],
    ];
    for (const [id, message] of cases) {
      const res = await fetch(`${url}/whoami`, { headers: { 'X-Scope-OrgID': id } });
      expect(res.status, id).toBe(400);
      expect(await res.text(), id).toContain(message);
    }
  });

  it('does not ask for a tenant on routes that do not act for one', async () => {
    const url = await serve(tenantServer(true).handler);
    expect((await fetch(`${url}/open`)).status).toBe(200);
  });

  it('runs every request as tenant fake when auth is disabled', async () => {
    const url = await serve(tenantServer(false).handler);
    expect(await (await fetch(`${url}/whoami`)).text()).toBe('fake\n');
    const withHeader = await fetch(`${url}/whoami`, { headers: { 'X-Scope-OrgID': 'team-a' } });
    expect(await withHeader.text()).toBe('fake\n');
  });

  it('refuses tenantOf in a route without a tenant', async () => {
    const { server } = makeServer();
    server.registerRoute({
      methods: ['GET'],
      path: '/bad',
      module: 't',
      description: 'd',
      tenant: false,
      handler: (_q, res) => writeText(res, 200, tenantOf(res)),
    });
    const url = await serve(server.handler);
    const res = await fetch(`${url}/bad`);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain(
      'tenantOf() called in a route not registered with tenant: true',
    );
  });
});

describe('registerPrefixedRoute', () => {
  it('serves a route under the configured prefix and its neutral alias', async () => {
    const { server } = makeServer();
    const route = (path: string, which: 'legacy' | 'prometheus' | 'alertmanager'): void =>
      registerPrefixedRoute(server, which, {
        methods: ['GET'],
        path,
        module: 'test',
        description: `tiny ${which} route`,
        tenant: false,
        handler: (req, res) => writeText(res, 200, `${which} ${req.path}`),
      });
    route('/api/v1/ping', 'prometheus');
    route('/push', 'legacy');
    route('/api/v2/status', 'alertmanager');
    const url = await serve(server.handler);
    for (const [path, body] of [
      ['/prometheus/api/v1/ping', 'prometheus /prometheus/api/v1/ping'],
      ['/mon/api/v1/ping', 'prometheus /mon/api/v1/ping'],
      ['/api/prom/push', 'legacy /api/prom/push'],
      ['/api/mon/push', 'legacy /api/mon/push'],
      ['/alertmanager/api/v2/status', 'alertmanager /alertmanager/api/v2/status'],
      ['/notifier/api/v2/status', 'alertmanager /notifier/api/v2/status'],
    ] as const) {
      const res = await fetch(`${url}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toBe(`${body}\n`);
    }
    const listed = server.routes().find((r) => r.path === '/prometheus/api/v1/ping');
    expect(listed?.aliases).toEqual(['/mon/api/v1/ping']);
  });

  it('follows a custom prefix and registers once when it equals the neutral one', async () => {
    const { server } = makeServer(true, {
      legacy: '/api/mon/',
      prometheus: 'custom',
      alertmanager: '/alertmanager',
    });
    registerPrefixedRoute(server, 'legacy', {
      methods: ['GET'],
      path: '/x',
      module: 't',
      description: 'd',
      tenant: false,
      handler: (_q, r) => writeText(r, 200, 'x'),
    });
    registerPrefixedRoute(server, 'prometheus', {
      methods: ['GET'],
      path: '/y',
      module: 't',
      description: 'd',
      tenant: false,
      handler: (_q, r) => writeText(r, 200, 'y'),
    });
    expect(server.routes().map((r) => [r.path, r.aliases])).toEqual([
      ['/api/mon/x', []],
      ['/custom/y', ['/mon/y']],
    ]);
    const url = await serve(server.handler);
    expect((await fetch(`${url}/custom/y`)).status).toBe(200);
    expect((await fetch(`${url}/prometheus/y`)).status).toBe(404);
  });
});

describe('the index page', () => {
  it('links every visible route, grouped by module, and marks tenant routes', async () => {
    const { server } = makeServer();
    registerIndexRoute(server);
    server.registerRoute({
      methods: ['GET'],
      path: '/ingester/ring',
      module: 'ingester',
      description: 'Ingester ring status',
      tenant: false,
      handler: () => undefined,
    });
    server.registerRoute({
      methods: ['POST'],
      path: '/api/v1/push',
      module: 'distributor',
      description: 'Remote write <protobuf>',
      tenant: true,
      handler: () => undefined,
    });
    server.registerRoute({
      methods: ['GET'],
      path: '/api/v1/label/:name/values',
      module: 'querier',
      description: 'Label values',
      tenant: true,
      handler: () => undefined,
    });
    server.registerRoute({
      methods: ['GET'],
      path: '/internal',
      module: 'ruler',
      description: 'internal',
      tenant: false,
      hidden: true,
      handler: () => undefined,
    });
    const url = await serve(server.handler);
    const res = await fetch(`${url}/`);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<h2>ingester</h2>');
    expect(html).toContain('<a href="/ingester/ring">/ingester/ring</a>');
    expect(html).toContain(
      'POST <code>/api/v1/push</code> <em>tenant</em> — Remote write &lt;protobuf&gt;',
    );
    expect(html).toContain('<code>/api/v1/label/:name/values</code>');
    expect(html).not.toContain('/internal');
    expect(html).toContain('X-Scope-OrgID');
  });
});
