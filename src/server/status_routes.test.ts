import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { newMetricsRegistry } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { HttpServer } from './http_server.js';
import type { ModuleStatus } from './module_status.js';
import { readiness } from './module_status.js';
import {
  type ConfigRenderMode,
  registerStatusRoutes,
  type RuntimeConfigRenderMode,
} from './status_routes.js';
import { CapturingLogger } from '../runtime/testing/index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

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

interface Options {
  runtimeConfig?: boolean;
  statuses?: ModuleStatus[];
}

async function start(opts: Options = {}) {
  const registry = newMetricsRegistry();
  const server = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock: new ManualClock(0), logger: new CapturingLogger(), metrics: registry },
  );
  const state = { statuses: opts.statuses ?? [] };
  registerStatusRoutes(server, {
    renderConfig: (mode: ConfigRenderMode) => `mode: ${mode}\nsecret: '********'\n`,
    renderRuntimeConfig: (mode: RuntimeConfigRenderMode) =>
      opts.runtimeConfig === true ? `overrides: {} # ${mode}\n` : undefined,
    statuses: () => state.statuses,
    metrics: registry,
    runtimeConfigEnabled: opts.runtimeConfig === true,
  });
  return { url: await serve(server.handler), registry, state };
}

describe('/config', () => {
  it('renders the whole configuration as YAML text by default', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/config`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe("mode: all\nsecret: '********'\n");
  });

  it('supports mode=diff and mode=defaults', async () => {
    const { url } = await start();
    expect(await (await fetch(`${url}/config?mode=diff`)).text()).toContain('mode: diff');
    expect(await (await fetch(`${url}/config?mode=defaults`)).text()).toContain('mode: defaults');
  });

  it('answers 400 naming an unknown mode', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/config?mode=everything`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid mode "everything"');
  });
});

describe('/runtime_config', () => {
  it('answers 404 with an explanation when no runtime config file is configured', async () => {
    const { url } = await start({ runtimeConfig: false });
    const res = await fetch(`${url}/runtime_config`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('runtime config file is not configured');
  });

  it('renders the runtime config, with mode=diff', async () => {
    const { url } = await start({ runtimeConfig: true });
    expect(await (await fetch(`${url}/runtime_config`)).text()).toBe('overrides: {} # all\n');
    expect(await (await fetch(`${url}/runtime_config?mode=diff`)).text()).toBe(
      'overrides: {} # diff\n',
    );
    const bad = await fetch(`${url}/runtime_config?mode=defaults`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('invalid mode "defaults"');
  });
});

describe('/services', () => {
  it('lists each service with its state and details, escaped', async () => {
    const { url } = await start({
      statuses: [
        { name: 'server', state: 'Running' },
        {
          name: 'compactor',
          state: 'Running',
          note: 'placeholder: compactor is not implemented yet (arrives with a later issue)',
        },
        { name: 'ruler', state: 'Failed', failureReason: 'bad <rule> file' },
      ],
    });
    const res = await fetch(`${url}/services`);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<tr><td>server</td><td>Running</td><td></td></tr>');
    expect(html).toContain(
      '<td>compactor</td><td>Running</td><td>placeholder: compactor is not implemented yet (arrives with a later issue)</td>',
    );
    expect(html).toContain('<td>ruler</td><td>Failed</td><td>bad &lt;rule&gt; file</td>');
  });
});

describe('/ready', () => {
  it('answers 503 naming the services that are not Running, then 200 once all are', async () => {
    const { url, state } = await start({
      statuses: [
        { name: 'server', state: 'Running' },
        { name: 'ingester', state: 'Starting' },
        { name: 'querier', state: 'New' },
        { name: 'ruler', state: 'New' },
      ],
    });
    const notReady = await fetch(`${url}/ready`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toBe(
      'Some services are not Running:\nNew: 2 (querier, ruler)\nStarting: 1 (ingester)\n',
    );

    state.statuses = state.statuses.map((s) => ({ ...s, state: 'Running' }));
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toBe('ready');
  });

  it('answers 503 when a Running service says it is not ready', async () => {
    const { url } = await start({
      statuses: [
        { name: 'querier', state: 'Running', notReadyReason: 'initial bucket sync in progress' },
      ],
    });
    const res = await fetch(`${url}/ready`);
    expect(res.status).toBe(503);
    expect(await res.text()).toBe(
      'Some services are not ready:\nquerier: initial bucket sync in progress\n',
    );
  });
});

describe('readiness', () => {
  it('is ready with no services at all', () => {
    expect(readiness([])).toEqual({ ready: true });
  });

  it('reports failed and stopping services', () => {
    const r = readiness([
      { name: 'a', state: 'Failed', failureReason: 'x' },
      { name: 'b', state: 'Stopping' },
    ]);
    expect(r).toEqual({
      ready: false,
      message: 'Some services are not Running:\nStopping: 1 (b)\nFailed: 1 (a)\n',
    });
  });
});

describe('/metrics', () => {
  it('exposes the registry in the text format, including request metrics, and it parses', async () => {
    const { url, registry } = await start();
    new Counter({
      name: 'strata_test_things_total',
      help: 'Things with "quotes" and \\ backslashes.',
      labelNames: ['kind'],
      registers: [registry],
    })
      .labels({ kind: 'a "quoted"\nvalue\\' })
      .inc(3);
    new Histogram({
      name: 'strata_test_seconds',
      help: 'A histogram.',
      buckets: [0.1, 1],
      registers: [registry],
    }).observe(0.5);
    await fetch(`${url}/ready`);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const families = parseExposition(text);
    expect(families.get('strata_test_things_total')?.type).toBe('counter');
    expect(families.get('strata_test_things_total')?.samples).toEqual([
      { name: 'strata_test_things_total', labels: { kind: 'a "quoted"\nvalue\\' }, value: 3 },
    ]);
    const duration = families.get('cortex_request_duration_seconds');
    expect(duration?.type).toBe('histogram');
    expect(
      duration?.samples.some(
        (s) => s.labels['route'] === 'ready' && s.labels['status_code'] === '200',
      ),
    ).toBe(true);
    expect(
      families.get('strata_test_seconds')?.samples.find((s) => s.labels['le'] === '+Inf')?.value,
    ).toBe(1);
    checkWithPromtool(text);
  });
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A strict reader of the Prometheus text format (0.0.4): HELP and TYPE before a family's
 * samples, valid metric and label names, escaped label values, float values, histogram
 * buckets ending at +Inf with the same count as `_count`. Throws on anything else.
 */
function parseExposition(
  text: string,
): Map<string, { type: string; help: string; samples: Sample[] }> {
  const families = new Map<string, { type: string; help: string; samples: Sample[] }>();
  const nameRe = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  expect(text.endsWith('\n')).toBe(true);
  let current: string | undefined;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta !== null) {
      const [, kind, name = '', rest = ''] = meta;
      if (!nameRe.test(name)) throw new Error(`bad metric name in: ${line}`);
      const fam = families.get(name) ?? { type: 'untyped', help: '', samples: [] };
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
          throw new Error(`bad type: ${line}`);
        fam.type = rest;
      } else {
        fam.help = rest;
      }
      families.set(name, fam);
      current = name;
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
    if (m === null) throw new Error(`bad sample line: ${line}`);
    const [, name = '', labelText, valueText = ''] = m;
    if (current === undefined || !(name === current || name.startsWith(`${current}_`))) {
      throw new Error(`sample ${name} outside its family (current ${current ?? 'none'})`);
    }
    const value =
      valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') throw new Error(`bad value: ${line}`);
    families.get(current)?.samples.push({ name, labels: parseLabels(labelText ?? ''), value });
  }
  for (const [name, fam] of families) {
    if (fam.type !== 'histogram') continue;
    const byLabels = new Map<string, { inf?: number; count?: number }>();
    for (const s of fam.samples) {
      const { le, ...rest } = s.labels;
      const key = JSON.stringify(rest);
      const entry = byLabels.get(key) ?? {};
      if (s.name === `${name}_bucket` && le === '+Inf') entry.inf = s.value;
      if (s.name === `${name}_count`) entry.count = s.value;
      byLabels.set(key, entry);
    }
    for (const [key, e] of byLabels) {
      if (e.inf === undefined || e.inf !== e.count)
        throw new Error(`histogram ${name}${key}: +Inf bucket ${e.inf} != count ${e.count}`);
    }
  }
  return families;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (text === '') return labels;
  let rest = text.slice(1, -1);
  while (rest.length > 0) {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/.exec(rest);
    if (m === null) throw new Error(`bad labels: ${text}`);
    const [all, name = '', raw = ''] = m;
    labels[name] = raw.replace(/\\(["\\n])/g, (_s, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(all.length);
  }
  return labels;
}

/** When promtool is installed (it is in CI), it must accept the exposition too. */
function checkWithPromtool(text: string): void {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined) return;
  const res = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  expect(res.status, `promtool check metrics: ${res.stdout}${res.stderr}`).toBe(0);
}
