import { createRequire, syncBuiltinESMExports } from 'node:module';

/**
 * While a simulation runs, every global that would let simulated code observe the real world
 * (wall-clock time, real timers, unseeded randomness) is replaced by a function that throws
 * when called from simulated code. Component code must take these from its Env; a call that
 * slips through would make a seed unreplayable, so it fails loudly instead.
 *
 * What is guarded: `Date.now()`, `Date()`, `new Date()` without arguments, `Math.random`,
 * `setTimeout`, `setInterval`, `queueMicrotask`, `process.nextTick`,
 * `globalThis.crypto.randomUUID/getRandomValues`, and the randomness and timer exports of
 * `node:crypto`, `node:timers` and `node:timers/promises` (patched on the CommonJS export
 * objects, then mirrored into the ESM namespaces with `syncBuiltinESMExports`, so even
 * `import { randomBytes } from 'node:crypto'` sees the guard).
 *
 * `setImmediate` (global and `node:timers`) is virtualised instead: called from simulated
 * code it runs its callback as a microtask, at the same virtual instant, before the kernel's
 * next event. Express's router defers with it on every error and 404 (`setImmediate(done,
 * err)`), so the simulated HTTP plane cannot avoid it; deferring to the end of the current
 * step is what an immediate means when no real IO can come first, and it observes nothing of
 * the real world. The real `setImmediate` would run it after the kernel's next event, at the
 * wrong virtual time. Component code still may not use it (the lint rule).
 *
 * "Called from simulated code" is decided by `isSimulatedCode`, which the kernel answers from
 * an AsyncLocalStorage context entered for every event: the event callback and every promise
 * continuation it causes carry the context, while callbacks Node and the test runner run on
 * their own (child-process IPC calls `process.nextTick`, vitest reads `Date.now`) do not and
 * get the real functions. Patching unconditionally kills vitest's worker, because its IPC
 * messages arrive between two simulation events while the globals are patched.
 *
 * Deliberately NOT guarded: `performance.now()` (the lint rule keeps it out of component
 * code), `clearTimeout` and friends (cancelling cannot introduce nondeterminism), and
 * references captured before the guard was installed (the kernel's saved `setImmediate`).
 */

const requireBuiltin = createRequire(import.meta.url);

/** Marks the installed guard so a second simulation in the same process is refused. */
const GUARD_MARK = Symbol.for('strata.sim.nondeterminism-guard');

export function nondeterministicGlobalError(what: string): Error {
  return new Error(`nondeterministic global ${what} used inside the simulation; use the Env`);
}

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** Throws for simulated code, delegates to the real function for everyone else. */
function guarded(what: string, original: unknown, isSimulatedCode: () => boolean): AnyFunction {
  const real = typeof original === 'function' ? (original as AnyFunction) : undefined;
  const fn = function (this: unknown, ...args: unknown[]): unknown {
    if (real === undefined || isSimulatedCode()) throw nondeterministicGlobalError(what);
    return real.apply(this, args);
  };
  Object.defineProperty(fn, GUARD_MARK, { value: true });
  return fn;
}

interface SavedProperty {
  readonly target: object;
  readonly key: PropertyKey;
  readonly own: PropertyDescriptor | undefined;
}

export interface GlobalsGuard {
  /** Puts every patched property back exactly as it was (own or inherited). */
  restore(): void;
}

/** True while some simulation in this process has the guard installed. */
export function isGuardInstalled(): boolean {
  return (Math.random as unknown as Record<symbol, unknown>)[GUARD_MARK] === true;
}

/**
 * Installs the guard. `isSimulatedCode` tells whether the current call comes from simulated
 * code (see the module comment); calls from anywhere else reach the real functions.
 */
export function installGlobalsGuard(isSimulatedCode: () => boolean): GlobalsGuard {
  if (isGuardInstalled()) {
    throw new Error(
      'a simulation is already running in this process; simulations cannot be nested or run concurrently',
    );
  }
  const saved: SavedProperty[] = [];
  const patchWith = (target: object, key: PropertyKey, value: unknown): void => {
    const own = Object.getOwnPropertyDescriptor(target, key);
    if (own !== undefined && !own.configurable && !own.writable) return;
    saved.push({ target, key, own });
    Object.defineProperty(target, key, {
      value,
      writable: true,
      configurable: true,
      enumerable: own?.enumerable ?? false,
    });
  };
  const patch = (target: object, key: string, what: string): void => {
    const original = (target as Record<string, unknown>)[key];
    patchWith(target, key, guarded(what, original, isSimulatedCode));
  };

  // Loaded before anything is patched: on its first load `node:timers/promises` copies
  // `clearImmediate` out of `node:timers`, and would keep this run's guard (and through
  // `isSimulatedCode` its kernel and cluster) alive for the rest of the process.
  const timersPromises = requireBuiltin('node:timers/promises') as Record<string, unknown>;
  // Before anything is patched: they defer through the real queueMicrotask.
  const immediates = virtualImmediates(isSimulatedCode);
  try {
    // Math.random first: isGuardInstalled() looks at it.
    patch(Math, 'random', 'Math.random');
    patchWith(globalThis, 'Date', guardedDate(Date, isSimulatedCode));
    for (const name of ['setTimeout', 'setInterval', 'queueMicrotask'])
      patch(globalThis, name, name);
    patch(process, 'nextTick', 'process.nextTick');
    patchWith(globalThis, 'setImmediate', immediates.setImmediate);
    patchWith(globalThis, 'clearImmediate', immediates.clearImmediate);

    const webCrypto = globalThis.crypto as object | undefined;
    if (webCrypto !== undefined) {
      patch(webCrypto, 'randomUUID', 'crypto.randomUUID');
      patch(webCrypto, 'getRandomValues', 'crypto.getRandomValues');
    }
    const nodeCrypto = requireBuiltin('node:crypto') as Record<string, unknown>;
    for (const name of [
      'randomBytes',
      'randomUUID',
      'randomInt',
      'randomFill',
      'randomFillSync',
      'getRandomValues',
      'pseudoRandomBytes',
      'prng',
      'rng',
    ]) {
      if (typeof nodeCrypto[name] === 'function') patch(nodeCrypto, name, `crypto.${name}`);
    }
    const timers = requireBuiltin('node:timers') as Record<string, unknown>;
    for (const name of ['setTimeout', 'setInterval']) patch(timers, name, `timers.${name}`);
    patchWith(timers, 'setImmediate', immediates.setImmediate);
    patchWith(timers, 'clearImmediate', immediates.clearImmediate);
    for (const name of ['setTimeout', 'setInterval', 'setImmediate'])
      patch(timersPromises, name, `timers/promises.${name}`);
    syncBuiltinESMExports();
  } catch (err) {
    restoreAll(saved);
    throw err;
  }
  let restored = false;
  return {
    restore(): void {
      if (restored) return;
      restored = true;
      restoreAll(saved);
    },
  };
}

function restoreAll(saved: readonly SavedProperty[]): void {
  for (let i = saved.length - 1; i >= 0; i--) {
    const { target, key, own } = saved[i]!;
    if (own === undefined) Reflect.deleteProperty(target, key);
    else Object.defineProperty(target, key, own);
  }
  syncBuiltinESMExports();
}

/** Marks the handles of virtual immediates, so `clearImmediate` knows them from real ones. */
const VIRTUAL_IMMEDIATE = Symbol('strata.sim.virtual-immediate');

interface VirtualImmediate {
  readonly [VIRTUAL_IMMEDIATE]: true;
  cancelled: boolean;
  hasRef(): boolean;
  ref(): VirtualImmediate;
  unref(): VirtualImmediate;
}

/**
 * `setImmediate`/`clearImmediate` that, for simulated code, defer the callback to a microtask
 * (see the module comment) and, for everyone else, are the real functions. An error thrown by
 * the callback becomes a rejected promise, which the kernel reports as an uncaught error.
 */
function virtualImmediates(isSimulatedCode: () => boolean): {
  setImmediate: AnyFunction;
  clearImmediate: AnyFunction;
} {
  const realSet = globalThis.setImmediate as unknown as AnyFunction;
  const realClear = globalThis.clearImmediate as unknown as AnyFunction;
  const realMicrotask = globalThis.queueMicrotask;
  const setImmediateFn = function (this: unknown, ...args: unknown[]): unknown {
    if (!isSimulatedCode()) return realSet.apply(this, args);
    const [callback, ...rest] = args;
    if (typeof callback !== 'function')
      throw new TypeError('setImmediate: the callback must be a function');
    const handle: VirtualImmediate = {
      [VIRTUAL_IMMEDIATE]: true,
      cancelled: false,
      hasRef: () => true,
      ref: () => handle,
      unref: () => handle,
    };
    realMicrotask(() => {
      if (handle.cancelled) return;
      try {
        (callback as (...a: unknown[]) => unknown)(...rest);
      } catch (err) {
        void Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    return handle;
  };
  Object.defineProperty(setImmediateFn, GUARD_MARK, { value: true });
  const clearImmediateFn = function (this: unknown, ...args: unknown[]): unknown {
    const handle = args[0] as Partial<VirtualImmediate> | undefined;
    if (handle !== null && typeof handle === 'object' && handle[VIRTUAL_IMMEDIATE] === true) {
      handle.cancelled = true;
      return undefined;
    }
    return realClear.apply(this, args);
  };
  return { setImmediate: setImmediateFn, clearImmediate: clearImmediateFn };
}

/**
 * A Date that still converts timestamps (`new Date(ms)`, `Date.UTC`, `Date.parse`,
 * `instanceof Date`) but refuses to read the current time.
 */
function guardedDate(realDate: DateConstructor, isSimulatedCode: () => boolean): DateConstructor {
  const now = guarded('Date.now', realDate.now, isSimulatedCode);
  const guardedCtor: DateConstructor = new Proxy(realDate, {
    apply(target, thisArg, args): unknown {
      if (isSimulatedCode()) throw nondeterministicGlobalError('Date()');
      return Reflect.apply(target, thisArg, args);
    },
    construct(target, args, newTarget): object {
      if (args.length === 0 && isSimulatedCode()) throw nondeterministicGlobalError('new Date()');
      return Reflect.construct(
        target,
        args,
        newTarget === guardedCtor ? target : newTarget,
      ) as object;
    },
    get(target, key, receiver): unknown {
      if (key === 'now') return now;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return guardedCtor;
}
