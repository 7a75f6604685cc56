import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/runtime/index.js';
import { createTestWorld } from '../testing/index.js';
import type { SimProcess } from './sim_process.js';

describe('SimCluster', () => {
  it('builds a new process through the factory for every incarnation; crashes never call stop()', async () => {
    const w = createTestWorld();
    const lives: string[] = [];
    w.cluster.addNode('n', (env: Env) => {
      lives.push(`built ${env.nodeName}`);
      return {
        start: () => {
          lives.push('start');
          return Promise.resolve();
        },
        stop: () => {
          lives.push('stop');
          return Promise.resolve();
        },
      };
    });
    w.kernel.after(0, { kind: 'boot' }, () => w.cluster.start('n'));
    w.kernel.after(10, { kind: 'crash' }, () => w.cluster.crash('n'));
    w.kernel.after(20, { kind: 'restart' }, () => w.cluster.restart('n'));
    w.kernel.after(30, { kind: 'power' }, () => w.cluster.powerLoss('n'));
    w.kernel.after(40, { kind: 'restart' }, () => w.cluster.restart('n'));
    await w.kernel.run();
    expect(lives).toEqual(['built n', 'start', 'built n', 'start', 'built n', 'start']);
    const node = w.cluster.node('n');
    expect(node.incarnationNumber).toBe(3);
    expect(node.state).toBe('up');
    const harness = w.services.logs.lines
      .filter((l) => l.msg.startsWith('[sim]'))
      .map((l) => `${l.incarnation} ${l.msg}`);
    expect(harness).toEqual([
      '1 [sim] process starting',
      '1 [sim] process crashed (simulated)',
      '2 [sim] process starting',
      '2 [sim] power lost (simulated)',
      '3 [sim] process starting',
    ]);
  });

  it('component code calling Date.now() inside the simulation fails the run, and globals are restored', async () => {
    const w = createTestWorld();
    const caught: string[] = [];
    const component = (env: Env): SimProcess => ({
      start() {
        env.clock.setTimer(5, () => {
          try {
            Date.now();
          } catch (err) {
            caught.push((err as Error).message);
          }
          Math.random(); // uncaught: reported as a simulation error
        });
        return Promise.resolve();
      },
      stop: () => Promise.resolve(),
    });
    w.cluster.addNode('c', component);
    w.kernel.after(0, { kind: 'boot' }, () => w.cluster.start('c'));
    await w.kernel.run();
    expect(caught).toEqual([
      'nondeterministic global Date.now used inside the simulation; use the Env',
    ]);
    expect(w.kernel.errors.map((e) => e.message)).toEqual([
      'Error: nondeterministic global Math.random used inside the simulation; use the Env',
    ]);
    expect(typeof Date.now()).toBe('number');
    expect(typeof Math.random()).toBe('number');
  });

  it('reports a process whose start() rejects', async () => {
    const w = createTestWorld();
    w.cluster.addNode('f', () => ({
      start: () => Promise.reject(new Error('cannot open WAL')),
      stop: () => Promise.resolve(),
    }));
    w.kernel.after(0, { kind: 'boot' }, () => w.cluster.start('f'));
    await w.kernel.run();
    expect(w.kernel.errors).toEqual([
      { time: w.kernel.now(), context: 'start of f#1', message: 'Error: cannot open WAL' },
    ]);
  });

  it('gives each incarnation its own deterministic random streams and a fresh metrics registry', async () => {
    const draws = async (seed: string): Promise<number[]> => {
      const w = createTestWorld({ seed });
      const out: number[] = [];
      w.cluster.addNode('r', (env) => {
        out.push(env.random.stream('ids').uint32());
        return { start: () => Promise.resolve(), stop: () => Promise.resolve() };
      });
      w.kernel.after(0, { kind: 'boot' }, () => w.cluster.start('r'));
      w.kernel.after(5, { kind: 'restart' }, () => w.cluster.restart('r'));
      await w.kernel.run();
      return out;
    };
    const a = await draws('s');
    expect(await draws('s')).toEqual(a);
    expect(a[0]).not.toBe(a[1]);
    expect(await draws('t')).not.toEqual(a);
  });

  it('refuses unknown nodes and double starts with messages naming them', () => {
    const w = createTestWorld();
    w.cluster.addNode('x', () => ({
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    }));
    expect(() => w.cluster.node('y')).toThrow(/unknown node "y"; nodes: x/);
    expect(() =>
      w.cluster.addNode('x', () => ({
        start: () => Promise.resolve(),
        stop: () => Promise.resolve(),
      })),
    ).toThrow(/node x already exists/);
    expect(() =>
      w.cluster.addNode('bad name', () => ({
        start: () => Promise.resolve(),
        stop: () => Promise.resolve(),
      })),
    ).toThrow(/invalid node name "bad name"/);
  });
});
