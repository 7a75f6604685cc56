import { describe, expect, it } from 'vitest';
import { setImmediate as timersSetImmediate } from 'node:timers';
import { createSeededRandom } from '../../src/runtime/index.js';
import { Incarnation } from './incarnation.js';
import { SimKernel } from './kernel.js';

const EPOCH = Date.UTC(2026, 0, 1);

function kernel(): SimKernel {
  return new SimKernel({
    epochMs: EPOCH,
    scheduling: createSeededRandom('g').stream('scheduling'),
  });
}

describe('setImmediate inside the simulation', () => {
  it('runs the callback at the same virtual instant, before the next event, with its arguments', async () => {
    const k = kernel();
    const seen: string[] = [];
    const owner = new Incarnation('n', 1);
    k.after(5, { kind: 'component', owner }, () => {
      setImmediate(
        (a: string, b: number) => seen.push(`global ${a} ${b}@${k.now() - EPOCH}`),
        'x',
        1,
      );
      timersSetImmediate(() => seen.push(`timers@${k.now() - EPOCH}`));
      void Promise.resolve().then(() =>
        setImmediate(() => seen.push(`from a continuation@${k.now() - EPOCH}`)),
      );
      seen.push('event body');
    });
    k.after(6, { kind: 'next' }, () => seen.push(`next@${k.now() - EPOCH}`));
    await k.run();
    expect(seen).toEqual([
      'event body',
      'global x 1@5',
      'timers@5',
      'from a continuation@5',
      'next@6',
    ]);
  });

  it('clearImmediate cancels a virtual immediate', async () => {
    const k = kernel();
    const seen: string[] = [];
    k.after(1, { kind: 'component' }, () => {
      const handle = setImmediate(() => seen.push('ran'));
      clearImmediate(handle);
    });
    await k.run();
    expect(seen).toEqual([]);
  });

  it("reports an error thrown by the callback as the simulation's uncaught error", async () => {
    const k = kernel();
    k.after(1, { kind: 'component' }, () => {
      setImmediate(() => {
        throw new Error('deferred boom');
      });
    });
    await k.run();
    expect(k.errors.map((e) => e.message)).toEqual(['Error: deferred boom']);
  });

  it('is the real setImmediate outside simulated code and after the run', async () => {
    const k = kernel();
    k.after(1, { kind: 'component' }, () => undefined);
    await k.run();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const outside = await new Promise<string>((resolve) => {
      const h = setImmediate(() => resolve('real'));
      expect(typeof h.hasRef).toBe('function');
    });
    expect(outside).toBe('real');
  });
});
