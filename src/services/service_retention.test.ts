import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { BasicService } from './service.js';

// vitest does not start workers with --expose-gc; the flag can still be set at run time and
// `gc` read from a fresh context.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Lets the current job end (WeakRefs deref'd in it stay alive until then), then collects. */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
}

/**
 * Starts a service whose `starting` hook keeps a stop listener on its signal (as the
 * ingester's TSDB loop does) and is never stopped, like a node that crashes or is still up
 * when a simulation ends; returns a WeakRef to what the listener holds.
 */
async function startAndDrop(): Promise<WeakRef<object>> {
  const component = { state: new Array<number>(1000).fill(1), stopped: false };
  const svc = new BasicService('leaky', {
    starting: (signal) => {
      signal.addEventListener('abort', () => (component.stopped = true), { once: true });
      return Promise.resolve();
    },
  });
  await svc.start(new AbortController().signal);
  expect(svc.state).toBe('Running');
  return new WeakRef(component);
}

describe('BasicService retention', () => {
  it('lets a started service that is never stopped be garbage collected', async () => {
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 3; i++) refs.push(await startAndDrop());
    await collect();
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });

  it('aborts the starting signal on stop, and on the caller aborting only while starting', async () => {
    const seen: unknown[] = [];
    let release = (): void => {};
    const hooks = (gate: boolean) => ({
      starting: (signal: AbortSignal): Promise<void> => {
        signal.addEventListener('abort', () => seen.push(signal.reason), { once: true });
        return gate ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
    });
    const stopped = new BasicService('a', hooks(false));
    await stopped.start(new AbortController().signal);
    await stopped.stop();
    expect(seen).toHaveLength(1);

    const during = new AbortController();
    const cancelled = new BasicService('b', hooks(true));
    const started = cancelled.start(during.signal);
    during.abort('shutdown');
    expect(seen).toEqual([seen[0], 'shutdown']);
    release();
    await started;

    const after = new AbortController();
    const running = new BasicService('c', hooks(false));
    await running.start(after.signal);
    after.abort('late');
    expect(seen).toHaveLength(2);
    await running.stop();
    expect(seen).toHaveLength(3);
  });
});
