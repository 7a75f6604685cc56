import { describe, expect, it } from 'vitest';
import { AbortError } from '../runtime/index.js';
import { BasicService } from './service.js';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const never = new AbortController().signal;

describe('BasicService', () => {
  it('goes New → Starting → Running → Stopping → Terminated', async () => {
    const starting = gate();
    const stopping = gate();
    const svc = new BasicService('s', {
      starting: () => starting.promise,
      stopping: () => stopping.promise,
    });
    expect(svc.state).toBe('New');
    const started = svc.start(never);
    expect(svc.state).toBe('Starting');
    expect(svc.isReady()).toBe('s is Starting');
    starting.open();
    await started;
    expect(svc.state).toBe('Running');
    expect(svc.isReady()).toBeUndefined();
    const stopped = svc.stop();
    await Promise.resolve();
    expect(svc.state).toBe('Stopping');
    stopping.open();
    await stopped;
    expect(svc.state).toBe('Terminated');
  });

  it('fails when starting throws, keeping the reason', async () => {
    const svc = new BasicService('s', {
      starting: () => Promise.reject(new Error('bucket unreachable')),
    });
    await expect(svc.start(never)).rejects.toThrow('bucket unreachable');
    expect(svc.state).toBe('Failed');
    expect(svc.failureReason).toBe('bucket unreachable');
    await svc.stop(); // harmless after a failed start
    expect(svc.state).toBe('Failed');
  });

  it('refuses to start twice', async () => {
    const svc = new BasicService('s');
    await svc.start(never);
    await expect(svc.start(never)).rejects.toThrow('service s cannot start: it is Running');
  });

  it('stops a never-started service immediately', async () => {
    const svc = new BasicService('s', {
      stopping: () => Promise.reject(new Error('must not run')),
    });
    await svc.stop();
    expect(svc.state).toBe('Terminated');
  });

  it('aborts a start in progress when stopped, ending Terminated', async () => {
    const svc = new BasicService('s', {
      starting: (signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new AbortError()), { once: true }),
        ),
    });
    const started = svc.start(never);
    await svc.stop();
    await expect(started).rejects.toThrow('operation aborted');
    expect(svc.state).toBe('Terminated');
  });

  it('ends the running loop on stop, then runs stopping', async () => {
    const events: string[] = [];
    const svc = new BasicService('s', {
      running: (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            events.push('loop ended');
            resolve();
          }),
        ),
      stopping: () => {
        events.push('stopping');
        return Promise.resolve();
      },
    });
    await svc.start(never);
    await svc.stop();
    expect(events).toEqual(['loop ended', 'stopping']);
    expect(svc.state).toBe('Terminated');
  });

  it('reports a running loop that throws as a failure', async () => {
    const crash = gate();
    const svc = new BasicService('s', {
      running: async () => {
        await crash.promise;
        throw new Error('disk full');
      },
    });
    const failures: string[] = [];
    svc.onFailure((err) => failures.push(err.message));
    await svc.start(never);
    crash.open();
    await until(() => failures.length > 0);
    expect(failures).toEqual(['disk full']);
    expect(svc.state).toBe('Failed');
    expect(svc.failureReason).toBe('disk full');
  });

  it('reports a running loop that returns on its own', async () => {
    const svc = new BasicService('s', { running: () => Promise.resolve() });
    const failures: string[] = [];
    svc.onFailure((err) => failures.push(err.message));
    await svc.start(never);
    await until(() => failures.length > 0);
    expect(failures).toEqual(['service s stopped unexpectedly']);
    expect(svc.state).toBe('Terminated');
  });

  it('is Failed when stopping throws, and stop rejects', async () => {
    const svc = new BasicService('s', {
      stopping: () => Promise.reject(new Error('flush failed')),
    });
    await svc.start(never);
    await expect(svc.stop()).rejects.toThrow('flush failed');
    expect(svc.state).toBe('Failed');
  });

  it('consults the readiness hook only while Running', async () => {
    let reason: string | undefined = 'syncing blocks';
    const svc = new BasicService('s', { isReady: () => reason });
    await svc.start(never);
    expect(svc.isReady()).toBe('syncing blocks');
    reason = undefined;
    expect(svc.isReady()).toBeUndefined();
  });
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await Promise.resolve();
  if (!cond()) throw new Error('condition not reached');
}
