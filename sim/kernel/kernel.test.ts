import { randomBytes as importedRandomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/runtime/index.js';
import { Incarnation } from './incarnation.js';
import { SimKernel } from './kernel.js';
import { isGuardInstalled } from './nondeterminism_guard.js';

const EPOCH = Date.UTC(2026, 0, 1);

function kernel(seed = '1'): SimKernel {
  return new SimKernel({
    epochMs: EPOCH,
    scheduling: createSeededRandom(seed).stream('scheduling'),
  });
}

describe('SimKernel', () => {
  it('runs events in virtual-time order and jumps time without waiting', async () => {
    const k = kernel();
    const seen: string[] = [];
    k.after(3_600_000, { kind: 'late' }, () => seen.push(`late@${k.now() - EPOCH}`));
    k.after(10, { kind: 'early' }, () => seen.push(`early@${k.now() - EPOCH}`));
    k.after(500, { kind: 'mid' }, () => seen.push(`mid@${k.now() - EPOCH}`));
    const result = await k.run();
    expect(seen).toEqual(['early@10', 'mid@500', 'late@3600000']);
    expect(result.reason).toBe('idle');
    expect(k.eventsExecuted).toBe(3);
  });

  it('drains promise continuations before advancing to the next event', async () => {
    const k = kernel();
    const seen: string[] = [];
    k.after(5, { kind: 'chain' }, () => {
      void (async () => {
        for (let i = 0; i < 50; i++) await Promise.resolve();
        seen.push(`chain-done@${k.now() - EPOCH}`);
        k.after(0, { kind: 'same-instant' }, () => seen.push(`same@${k.now() - EPOCH}`));
      })();
    });
    k.after(6, { kind: 'next' }, () => seen.push(`next@${k.now() - EPOCH}`));
    await k.run();
    expect(seen).toEqual(['chain-done@5', 'same@5', 'next@6']);
  });

  it('orders same-time events by a seeded tie-break, differently for different seeds', async () => {
    const orderFor = async (seed: string): Promise<number[]> => {
      const k = kernel(seed);
      const order: number[] = [];
      for (let i = 0; i < 8; i++)
        k.after(100, { kind: 'tie', detail: String(i) }, () => order.push(i));
      await k.run();
      return order;
    };
    expect(await orderFor('a')).toEqual(await orderFor('a'));
    const orders = new Set<string>();
    for (const seed of ['a', 'b', 'c', 'd']) orders.add((await orderFor(seed)).join(','));
    expect(orders.size).toBeGreaterThan(1);
  });

  it('stops at `until`, sets the clock to it, and can continue later', async () => {
    const k = kernel();
    const seen: number[] = [];
    for (const t of [10, 20, 30]) k.after(t, { kind: 't' }, () => seen.push(t));
    const r1 = await k.run({ until: EPOCH + 20 });
    expect(r1.reason).toBe('until');
    expect(seen).toEqual([10, 20]);
    expect(k.now()).toBe(EPOCH + 20);
    const r2 = await k.run({ until: EPOCH + 1000 });
    expect(seen).toEqual([10, 20, 30]);
    expect(r2.reason).toBe('idle');
    expect(k.now()).toBe(EPOCH + 1000);
  });

  it('stops when the predicate holds', async () => {
    const k = kernel();
    let count = 0;
    const tick = (): void => {
      count++;
      k.after(1, { kind: 'tick' }, tick);
    };
    k.after(1, { kind: 'tick' }, tick);
    const r = await k.run({ stopWhen: () => count >= 25 });
    expect(r.reason).toBe('predicate');
    expect(count).toBe(25);
  });

  it('drops events of a dead incarnation and counts them', async () => {
    const k = kernel();
    const life = new Incarnation('b', 1);
    const seen: string[] = [];
    k.after(10, { kind: 'timer', owner: life }, () => seen.push('dead timer ran'));
    k.after(5, { kind: 'crash' }, () => life.kill());
    k.after(20, { kind: 'other' }, () => seen.push('other'));
    await k.run();
    expect(seen).toEqual(['other']);
    expect(k.eventsDropped).toBe(1);
  });

  it('cancelled events never run', async () => {
    const k = kernel();
    let ran = false;
    const ev = k.after(10, { kind: 'x' }, () => (ran = true));
    ev.cancel();
    await k.run();
    expect(ran).toBe(false);
  });

  it('hashes the trace: identical for the same seed, different for another', async () => {
    const hashFor = async (seed: string): Promise<string> => {
      const k = kernel(seed);
      for (let i = 0; i < 5; i++) k.after(7, { kind: 'same-time', detail: `e${i}` }, () => {});
      await k.run();
      return k.traceHash();
    };
    expect(await hashFor('s1')).toBe(await hashFor('s1'));
    expect(await hashFor('s1')).not.toBe(await hashFor('s2'));
  });
});

describe('nondeterministic globals inside the simulation', () => {
  const cases: Array<[string, () => unknown]> = [
    ['Date.now', () => Date.now()],
    ['new Date()', () => new Date()],
    ['Date()', () => (Date as unknown as () => string)()],
    ['Math.random', () => Math.random()],
    ['setTimeout', () => setTimeout(() => {}, 1)],
    ['setInterval', () => setInterval(() => {}, 1)],
    ['queueMicrotask', () => queueMicrotask(() => {})],
    ['process.nextTick', () => process.nextTick(() => {})],
    ['crypto.randomUUID', () => globalThis.crypto.randomUUID()],
    ['crypto.getRandomValues', () => globalThis.crypto.getRandomValues(new Uint8Array(4))],
    ['crypto.randomBytes', () => importedRandomBytes(4)],
  ];

  for (const [name, call] of cases) {
    it(`${name} throws when component code calls it inside an event`, async () => {
      const k = kernel();
      // Component-style code: a timer callback that reaches for the real world.
      k.after(1, { kind: 'component.tick', owner: new Incarnation('n', 1) }, () => {
        call();
      });
      await expect(k.run()).rejects.toThrow(
        new RegExp(
          `nondeterministic global ${escape(name)} used inside the simulation; use the Env`,
        ),
      );
      expect(isGuardInstalled()).toBe(false);
    });
  }

  it('throws in promise continuations too, and keeps deterministic Date uses working', async () => {
    const k = kernel();
    const caught: string[] = [];
    let converted = '';
    k.after(1, { kind: 'async-component' }, () => {
      void (async () => {
        await Promise.resolve();
        converted = new Date(EPOCH).toISOString();
        expect(new Date(EPOCH) instanceof Date).toBe(true);
        expect(Date.UTC(2026, 0, 1)).toBe(EPOCH);
        try {
          Date.now();
        } catch (err) {
          caught.push((err as Error).message);
        }
      })();
    });
    await k.run();
    expect(converted).toBe('2026-01-01T00:00:00.000Z');
    expect(caught).toEqual([
      'nondeterministic global Date.now used inside the simulation; use the Env',
    ]);
  });

  it('records an unhandled rejection caused by a global as a simulation error', async () => {
    const k = kernel();
    k.after(1, { kind: 'floating' }, () => {
      void Promise.resolve().then(() => Math.random());
    });
    await k.run();
    expect(k.errors.map((e) => e.message)).toEqual([
      'Error: nondeterministic global Math.random used inside the simulation; use the Env',
    ]);
  });

  it('restores every global after the run, even when it fails', async () => {
    const descriptor = (target: object, key: string): unknown =>
      Object.getOwnPropertyDescriptor(target, key)?.value;
    const before = {
      now: descriptor(Date, 'now'),
      date: Date,
      random: descriptor(Math, 'random'),
      setTimeout: descriptor(globalThis, 'setTimeout'),
      nextTick: descriptor(process, 'nextTick'),
      uuid: Object.getOwnPropertyDescriptor(globalThis.crypto, 'randomUUID'),
    };
    const k = kernel();
    k.after(1, { kind: 'boom' }, () => {
      throw new Error('boom');
    });
    await expect(k.run()).rejects.toThrow(/boom/);
    expect(Date).toBe(before.date);
    expect(descriptor(Date, 'now')).toBe(before.now);
    expect(descriptor(Math, 'random')).toBe(before.random);
    expect(descriptor(globalThis, 'setTimeout')).toBe(before.setTimeout);
    expect(descriptor(process, 'nextTick')).toBe(before.nextTick);
    // randomUUID lives on Crypto.prototype; the guard's own property must be gone again.
    expect(Object.getOwnPropertyDescriptor(globalThis.crypto, 'randomUUID')).toBe(before.uuid);
    expect(typeof Date.now()).toBe('number');
    expect(importedRandomBytes(4)).toHaveLength(4);
    expect(typeof Math.random()).toBe('number');
  });

  it('refuses to run two simulations at once', async () => {
    const k1 = kernel();
    const k2 = kernel();
    let inner: Promise<unknown> | undefined;
    k1.after(1, { kind: 'nest' }, () => {
      inner = k2.run().catch((err: unknown) => (err as Error).message);
    });
    await k1.run();
    expect(await inner).toMatch(/already running/);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
