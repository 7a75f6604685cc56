import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { INITIALISED_ONLY, readiness } from '../server/index.js';
import {
  ModuleDependencyError,
  type ModuleDefinition,
  ModuleManager,
  ModuleStartError,
  StartAbortedError,
  UnknownModuleError,
  resolveModuleOrder,
} from './module_manager.js';
import { strataModules } from './modules.js';
import { BasicService, type Service } from '../services/index.js';

type Ctx = { events: string[] };

interface Behaviour {
  failStart?: string;
  failInit?: string;
  /** Stop never finishes. */
  hangStop?: boolean;
  /** No service (like `overrides`). */
  noService?: boolean;
}

function mod(name: string, deps: string[], behaviour: Behaviour = {}): ModuleDefinition<Ctx> {
  return {
    name,
    deps,
    init: (ctx) => {
      ctx.events.push(`init ${name}`);
      if (behaviour.failInit !== undefined) return Promise.reject(new Error(behaviour.failInit));
      if (behaviour.noService === true) return Promise.resolve(undefined);
      const svc: Service = new BasicService(name, {
        starting: () => {
          ctx.events.push(`start ${name}`);
          return behaviour.failStart === undefined
            ? Promise.resolve()
            : Promise.reject(new Error(behaviour.failStart));
        },
        stopping: () => {
          ctx.events.push(`stop ${name}`);
          return behaviour.hangStop === true
            ? new Promise<void>(() => undefined)
            : Promise.resolve();
        },
      });
      return Promise.resolve(svc);
    },
  };
}

function manager(defs: ModuleDefinition<Ctx>[], graceMs = 1000) {
  const clock = new ManualClock(0);
  const logger = new CapturingLogger();
  const m = new ModuleManager(defs, { shutdownGraceMs: graceMs }, { clock, logger });
  return { m, clock, logger };
}

const never = new AbortController().signal;

/** A small graph: server ← ring, overrides ← a, b; c ← a. */
function graph(overrides: Record<string, Behaviour> = {}): ModuleDefinition<Ctx>[] {
  return [
    mod('server', [], overrides['server']),
    mod('ring', ['server'], overrides['ring']),
    mod('overrides', ['server'], overrides['overrides']),
    mod('a', ['ring', 'overrides'], overrides['a']),
    mod('b', ['overrides'], overrides['b']),
    mod('c', ['a'], overrides['c']),
    { name: 'all', deps: ['a', 'b', 'c'] },
  ];
}

describe('resolveModuleOrder', () => {
  it('returns the dependency closure, dependencies first, ties by name', () => {
    expect(resolveModuleOrder(graph(), ['a'])).toEqual(['server', 'overrides', 'ring', 'a']);
    expect(resolveModuleOrder(graph(), ['b'])).toEqual(['server', 'overrides', 'b']);
    expect(resolveModuleOrder(graph(), ['all'])).toEqual([
      'server',
      'overrides',
      'b',
      'ring',
      'a',
      'c',
      'all',
    ]);
  });

  it('accepts several targets and does not depend on their order', () => {
    expect(resolveModuleOrder(graph(), ['c', 'b'])).toEqual([
      'server',
      'overrides',
      'b',
      'ring',
      'a',
      'c',
    ]);
    expect(resolveModuleOrder(graph(), ['b', 'c'])).toEqual(
      resolveModuleOrder(graph(), ['c', 'b']),
    );
  });

  it('always puts every module after its dependencies, whatever the targets', () => {
    const defs = strataModules();
    const names = defs.map((d) => d.name);
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...names), { minLength: 1 }), (targets) => {
        const order = resolveModuleOrder(defs, targets);
        for (const t of targets) expect(order).toContain(t);
        for (const d of defs) {
          if (!order.includes(d.name)) continue;
          for (const dep of d.deps) expect(order.indexOf(dep)).toBeLessThan(order.indexOf(d.name));
        }
        expect(resolveModuleOrder(defs, [...targets].reverse())).toEqual(order);
      }),
    );
  });

  it('names an unknown target and lists the valid ones', () => {
    expect(() => resolveModuleOrder(graph(), ['a', 'nope'])).toThrow(UnknownModuleError);
    expect(() => resolveModuleOrder(graph(), ['nope'])).toThrow(
      'unknown target "nope": valid targets are a, all, b, c, overrides, ring, server',
    );
  });

  it('names a dependency on an unknown module', () => {
    expect(() => resolveModuleOrder([mod('x', ['ghost'])], ['x'])).toThrow(
      'module x depends on unknown module "ghost"',
    );
  });

  it('detects cycles', () => {
    const defs = [mod('x', ['y']), mod('y', ['z']), mod('z', ['x'])];
    expect(() => resolveModuleOrder(defs, ['x'])).toThrow(ModuleDependencyError);
    expect(() => resolveModuleOrder(defs, ['x'])).toThrow(
      'dependency cycle among modules: x, y, z',
    );
  });

  it('refuses duplicate module names', () => {
    expect(() => resolveModuleOrder([mod('x', []), mod('x', [])], ['x'])).toThrow(
      'module x defined twice',
    );
  });
});

describe('the Strata module graph', () => {
  const defs = strataModules();

  it('runs a component with its infrastructure', () => {
    expect(resolveModuleOrder(defs, ['distributor'])).toEqual([
      'server',
      'runtime-config',
      'overrides',
      'ring',
      'distributor',
    ]);
    expect(resolveModuleOrder(defs, ['query-frontend'])).toEqual([
      'server',
      'runtime-config',
      'overrides',
      'query-frontend',
    ]);
    expect(resolveModuleOrder(defs, ['configs'])).toEqual(['server', 'configs']);
  });

  it('resolves comma-separated target lists', () => {
    expect(resolveModuleOrder(defs, ['distributor', 'querier'])).toEqual([
      'server',
      'runtime-config',
      'overrides',
      'ring',
      'distributor',
      'querier',
    ]);
  });

  it('makes all every component except the deprecated configs service', () => {
    const all = resolveModuleOrder(defs, ['all']);
    for (const c of [
      'distributor',
      'ingester',
      'querier',
      'query-frontend',
      'store-gateway',
      'compactor',
      'ruler',
      'alertmanager',
      'purger',
    ]) {
      expect(all).toContain(c);
    }
    expect(all).not.toContain('configs');
    expect(resolveModuleOrder(defs, ['all', 'configs'])).toContain('configs');
  });
});

describe('ModuleManager', () => {
  it('initialises and starts in order, stops in reverse', async () => {
    const { m } = manager(graph({ overrides: { noService: true } }));
    const ctx: Ctx = { events: [] };
    await m.init(['a'], ctx);
    await m.start(never);
    expect(m.statuses().map((s) => [s.name, s.state])).toEqual([
      ['server', 'Running'],
      ['overrides', INITIALISED_ONLY],
      ['ring', 'Running'],
      ['a', 'Running'],
    ]);
    const result = await m.stop();
    expect(result).toEqual({ notStopped: [], failed: [] });
    expect(ctx.events).toEqual([
      'init server',
      'init overrides',
      'init ring',
      'init a',
      'start server',
      'start ring',
      'start a',
      'stop a',
      'stop ring',
      'stop server',
    ]);
    expect(
      m.statuses().every((s) => s.state === 'Terminated' || s.state === INITIALISED_ONLY),
    ).toBe(true);
  });

  it('stops the started modules in reverse when one fails to start, naming it', async () => {
    const { m, logger } = manager(
      graph({ a: { failStart: 'ring KV unreachable: consul not supported' } }),
    );
    const ctx: Ctx = { events: [] };
    await m.init(['c'], ctx);
    const err = await m.start(never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModuleStartError);
    expect((err as ModuleStartError).module).toBe('a');
    expect((err as Error).message).toBe(
      'module a failed to start: ring KV unreachable: consul not supported',
    );
    expect(ctx.events.filter((e) => !e.startsWith('init'))).toEqual([
      'start server',
      'start overrides',
      'start ring',
      'start a',
      'stop ring',
      'stop overrides',
      'stop server',
    ]);
    const states = Object.fromEntries(m.statuses().map((s) => [s.name, s.state]));
    expect(states).toEqual({
      server: 'Terminated',
      overrides: 'Terminated',
      ring: 'Terminated',
      a: 'Failed',
      c: 'Terminated',
    });
    expect(logger.find('module failed to start', 'error')[0]?.fields['module']).toBe('a');
  });

  it('names a module that fails to initialise', async () => {
    const { m } = manager(graph({ ring: { failInit: 'bad ring config' } }));
    const err = await m.init(['a'], { events: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModuleStartError);
    expect((err as Error).message).toBe('module ring failed to initialise: bad ring config');
  });

  it('abandons the start when its signal aborts, stopping what started', async () => {
    const { m } = manager(graph());
    const ctx: Ctx = { events: [] };
    await m.init(['b'], ctx);
    const controller = new AbortController();
    controller.abort();
    await expect(m.start(controller.signal)).rejects.toBeInstanceOf(StartAbortedError);
    expect(ctx.events.filter((e) => e.startsWith('start'))).toEqual([]);
    expect(
      m.statuses().every((s) => s.state === 'Terminated' || s.state === INITIALISED_ONLY),
    ).toBe(true);
  });

  it('reports the modules that did not stop within the grace period', async () => {
    const { m, clock } = manager(graph({ ring: { hangStop: true } }), 5000);
    const ctx: Ctx = { events: [] };
    await m.init(['a'], ctx);
    await m.start(never);
    const stopping = m.stop();
    await clock.advance(4999);
    let settled = false;
    void stopping.then(() => (settled = true));
    await clock.advance(0);
    expect(settled).toBe(false);
    await clock.advance(1);
    const result = await stopping;
    expect(result.notStopped).toEqual(['ring', 'overrides', 'server']);
    // The modules after the stuck one are still asked to stop, without waiting.
    expect(ctx.events.filter((e) => e.startsWith('stop'))).toEqual([
      'stop a',
      'stop ring',
      'stop overrides',
      'stop server',
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('cancels the grace timer when everything stops in time', async () => {
    const { m, clock } = manager(graph());
    await m.init(['b'], { events: [] });
    await m.start(never);
    await m.stop();
    expect(clock.pendingTimers).toBe(0);
  });

  it('tells listeners when a running module fails, but not during shutdown', async () => {
    let crash!: (err: Error) => void;
    const defs: ModuleDefinition<Ctx>[] = [
      {
        name: 'worker',
        deps: [],
        init: () =>
          Promise.resolve(
            new BasicService('worker', {
              running: () => new Promise<void>((_resolve, reject) => (crash = reject)),
            }),
          ),
      },
    ];
    const { m } = manager(defs);
    const failures: string[] = [];
    m.onModuleFailure((module, err) => failures.push(`${module}: ${err.message}`));
    await m.init(['worker'], { events: [] });
    await m.start(never);
    crash(new Error('WAL corrupted'));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(failures).toEqual(['worker: WAL corrupted']);
    expect(m.statuses()[0]).toMatchObject({ state: 'Failed', failureReason: 'WAL corrupted' });
  });

  it('shows notes and readiness in statuses', async () => {
    const defs: ModuleDefinition<Ctx>[] = [
      {
        name: 'p',
        deps: [],
        init: () => Promise.resolve(new BasicService('p', {}, 'placeholder')),
      },
      {
        name: 'q',
        deps: [],
        init: () => Promise.resolve(new BasicService('q', { isReady: () => 'syncing' })),
      },
    ];
    const { m } = manager(defs);
    await m.init(['p', 'q'], { events: [] });
    expect(m.statuses()).toEqual([
      {
        name: 'p',
        state: 'New',
        failureReason: undefined,
        note: 'placeholder',
        notReadyReason: undefined,
      },
      {
        name: 'q',
        state: 'New',
        failureReason: undefined,
        note: undefined,
        notReadyReason: undefined,
      },
    ]);
    await m.start(never);
    expect(m.statuses()[1]?.notReadyReason).toBe('syncing');
  });
});

describe('ModuleManager statuses', () => {
  it('lists modules without a service as Initialised, and they do not hold back readiness', async () => {
    const defs: ModuleDefinition<object>[] = [
      { name: 'base', deps: [], init: () => Promise.resolve(undefined) },
      {
        name: 'top',
        deps: ['base'],
        init: () => Promise.resolve(new BasicService('top', {})),
      },
    ];
    const mm = new ModuleManager(
      defs,
      { shutdownGraceMs: 1000 },
      {
        clock: new ManualClock(),
        logger: new CapturingLogger(),
      },
    );
    await mm.init(['top'], {});
    await mm.start(new AbortController().signal);
    expect(mm.statuses().map((s) => [s.name, s.state])).toEqual([
      ['base', INITIALISED_ONLY],
      ['top', 'Running'],
    ]);
    expect(readiness(mm.statuses())).toEqual({ ready: true });
    await mm.stop();
  });
});
