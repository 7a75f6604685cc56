import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type LimitsConfig } from '../config/index.js';
import {
  type FileHandle,
  type FileStat,
  type FileSystem,
  FileSystemError,
  type MetricsRegistry,
  newMetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock, type CapturedLine } from '../runtime/testing/index.js';
import { RuntimeConfigManager } from './manager.js';
import { Overrides } from './overrides.js';
import type { RuntimeConfig } from './runtime_config.js';
import { RuntimeConfigError } from './runtime_config_error.js';

// ---- test doubles ---------------------------------------------------------------------------

/** Whole files in a map; only what the manager uses is implemented. */
class MemoryFileSystem implements FileSystem {
  readonly files = new Map<string, Uint8Array>();
  reads = 0;
  /** When set, the next readFile waits for this promise first (to stop mid-read). */
  gate: Promise<void> | undefined;

  put(path: string, text: string): void {
    this.files.set(path, new TextEncoder().encode(text));
  }

  async readFile(path: string): Promise<Uint8Array> {
    this.reads++;
    if (this.gate !== undefined) await this.gate;
    const data = this.files.get(path);
    if (data === undefined) throw new FileSystemError('ENOENT', path);
    return data.slice();
  }

  writeFile(path: string, data: Uint8Array | string): Promise<void> {
    this.files.set(path, typeof data === 'string' ? new TextEncoder().encode(data) : data.slice());
    return Promise.resolve();
  }

  exists(path: string): Promise<boolean> {
    return Promise.resolve(this.files.has(path));
  }

  stat(path: string): Promise<FileStat | undefined> {
    const data = this.files.get(path);
    return Promise.resolve(
      data === undefined ? undefined : { size: data.length, isDirectory: false, mtimeMs: 0 },
    );
  }

  open(): Promise<FileHandle> {
    throw new Error('MemoryFileSystem.open is not used by these tests');
  }
  mkdir(): Promise<void> {
    throw new Error('MemoryFileSystem.mkdir is not used by these tests');
  }
  readdir(): Promise<string[]> {
    throw new Error('MemoryFileSystem.readdir is not used by these tests');
  }
  rename(): Promise<void> {
    throw new Error('MemoryFileSystem.rename is not used by these tests');
  }
  remove(): Promise<void> {
    throw new Error('MemoryFileSystem.remove is not used by these tests');
  }
  syncDir(): Promise<void> {
    throw new Error('MemoryFileSystem.syncDir is not used by these tests');
  }
}

// ---- helpers --------------------------------------------------------------------------------

function errorLines(logger: CapturingLogger): CapturedLine[] {
  return logger.lines.filter((l) => l.level === 'error');
}

const FILE = '/etc/strata/runtime.yaml';
const PERIOD = 10_000;

const DEFAULTS: LimitsConfig = defaultConfig().limits;

function setup(initial: string | undefined) {
  const clock = new ManualClock();
  const fs = new MemoryFileSystem();
  const logger = new CapturingLogger();
  const metrics = newMetricsRegistry();
  if (initial !== undefined) fs.put(FILE, initial);
  const manager = new RuntimeConfigManager(
    { file: FILE, periodMs: PERIOD },
    { fs, clock, logger, metrics },
  );
  const overrides = new Overrides(DEFAULTS, manager);
  return { clock, fs, logger, metrics, manager, overrides };
}

async function metricValues(metrics: MetricsRegistry, name: string) {
  const metric = metrics.getSingleMetric(name);
  if (metric === undefined) throw new Error(`metric ${name} is not registered`);
  return (await metric.get()).values;
}

async function gauge(metrics: MetricsRegistry, name: string): Promise<number | undefined> {
  return (await metricValues(metrics, name))[0]?.value;
}

async function hashLabels(metrics: MetricsRegistry): Promise<string[]> {
  const values = await metricValues(metrics, 'cortex_runtime_config_hash');
  return values.filter((v) => v.value === 1).map((v) => String(v.labels['sha256']));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const RATE_100 = 'overrides:\n  tenant-a:\n    ingestion_rate: 100\n';
const RATE_200 = 'overrides:\n  tenant-a:\n    ingestion_rate: 200\n';
const BROKEN = 'overrides:\n  tenant-a:\n    ingestion_rat: 300\n';

// ---- tests ----------------------------------------------------------------------------------

describe('RuntimeConfigManager', () => {
  it('loads the file at start and serves its overrides', async () => {
    const { manager, overrides, metrics } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    expect(overrides.ingestionRate('tenant-a')).toBe(100);
    expect(overrides.ingestionRate('tenant-b')).toBe(DEFAULTS.ingestion_rate);
    expect(await gauge(metrics, 'cortex_runtime_config_last_reload_successful')).toBe(1);
    expect(await hashLabels(metrics)).toEqual([sha256(RATE_100)]);
    expect(await gauge(metrics, 'cortex_runtime_config_reload_failures_total')).toBe(0);
    await manager.stop();
  });

  it('refuses to start when the file is missing, naming the file', async () => {
    const { manager, metrics } = setup(undefined);
    await expect(manager.start(new AbortController().signal)).rejects.toThrow(
      new RegExp(`failed to load runtime config file ${FILE}: read file: ENOENT`),
    );
    expect(await gauge(metrics, 'cortex_runtime_config_last_reload_successful')).toBe(0);
    expect(await gauge(metrics, 'cortex_runtime_config_reload_failures_total')).toBe(1);
  });

  it('refuses to start when the file is invalid, naming the file and the problem', async () => {
    const { manager, clock } = setup(BROKEN);
    const started = manager.start(new AbortController().signal);
    await expect(started).rejects.toBeInstanceOf(RuntimeConfigError);
    await expect(started).rejects.toThrow(
      /runtime config file \/etc\/strata\/runtime.yaml: load file: unknown limit "ingestion_rat" for tenant "tenant-a" \(line 3\)/,
    );
    expect(clock.pendingTimers).toBe(0);
  });

  it('refuses to start with bytes that are not UTF-8', async () => {
    const { manager, fs } = setup(undefined);
    fs.files.set(FILE, new Uint8Array([0x6f, 0x3a, 0xff, 0xfe]));
    await expect(manager.start(new AbortController().signal)).rejects.toThrow(/load file: .*/);
  });

  it('picks up a changed file at the next period and tells listeners', async () => {
    const { manager, overrides, fs, clock, metrics } = setup(RATE_100);
    const seen: RuntimeConfig[] = [];
    manager.onChange((cfg) => seen.push(cfg));
    await manager.start(new AbortController().signal);
    expect(seen).toHaveLength(0); // the initial load is what start() awaits, not a change

    fs.put(FILE, RATE_200);
    await clock.advance(PERIOD - 1);
    expect(overrides.ingestionRate('tenant-a')).toBe(100);
    await clock.advance(1);
    expect(overrides.ingestionRate('tenant-a')).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(manager.current());
    expect(await hashLabels(metrics)).toEqual([sha256(RATE_200)]);
    await manager.stop();
  });

  it('does not notify listeners when the file did not change', async () => {
    const { manager, fs, clock } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    let calls = 0;
    manager.onChange(() => calls++);
    await clock.advance(PERIOD * 3);
    expect(fs.reads).toBe(4);
    expect(calls).toBe(0);
    await manager.stop();
  });

  it('keeps the last good config on an invalid reload, with gauge 0, a counted failure and an error log', async () => {
    const { manager, overrides, fs, clock, metrics, logger } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    const before = manager.current();
    let calls = 0;
    manager.onChange(() => calls++);

    fs.put(FILE, BROKEN);
    await clock.advance(PERIOD);
    expect(manager.current()).toBe(before);
    expect(overrides.ingestionRate('tenant-a')).toBe(100);
    expect(calls).toBe(0);
    expect(await gauge(metrics, 'cortex_runtime_config_last_reload_successful')).toBe(0);
    expect(await gauge(metrics, 'cortex_runtime_config_reload_failures_total')).toBe(1);
    // The hash keeps describing the config in use, not the broken file.
    expect(await hashLabels(metrics)).toEqual([sha256(RATE_100)]);
    const errors = errorLines(logger);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields['file']).toBe(FILE);
    expect(String(errors[0]?.fields['err'])).toMatch(
      /unknown limit "ingestion_rat" for tenant "tenant-a"/,
    );

    await clock.advance(PERIOD);
    expect(await gauge(metrics, 'cortex_runtime_config_reload_failures_total')).toBe(2);

    fs.files.delete(FILE);
    await clock.advance(PERIOD);
    expect(await gauge(metrics, 'cortex_runtime_config_reload_failures_total')).toBe(3);
    expect(String(errorLines(logger)[2]?.fields['err'])).toMatch(/read file: ENOENT/);
    expect(overrides.ingestionRate('tenant-a')).toBe(100);
    await manager.stop();
  });

  it('recovers: a good file after a bad one applies it and sets the gauge back to 1', async () => {
    const { manager, overrides, fs, clock, metrics } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    fs.put(FILE, BROKEN);
    await clock.advance(PERIOD);
    expect(await gauge(metrics, 'cortex_runtime_config_last_reload_successful')).toBe(0);

    fs.put(FILE, RATE_200);
    await clock.advance(PERIOD);
    expect(await gauge(metrics, 'cortex_runtime_config_last_reload_successful')).toBe(1);
    expect(overrides.ingestionRate('tenant-a')).toBe(200);
    expect(await hashLabels(metrics)).toEqual([sha256(RATE_200)]);
    await manager.stop();
  });

  it('recovers even when the good file is the same as the last applied one', async () => {
    const { manager, fs, clock, metrics } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    fs.put(FILE, BROKEN);
    await clock.advance(PERIOD);
    fs.put(FILE, RATE_100);
    await clock.advance(PERIOD);
    expect(await gauge(metrics, 'cortex_runtime_config_last_reload_successful')).toBe(1);
    await manager.stop();
  });

  it('stop() cancels reloads', async () => {
    const { manager, overrides, fs, clock } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    await manager.stop();
    expect(clock.pendingTimers).toBe(0);
    fs.put(FILE, RATE_200);
    await clock.advance(PERIOD * 5);
    expect(fs.reads).toBe(1);
    expect(overrides.ingestionRate('tenant-a')).toBe(100);
  });

  it('aborting the start signal cancels reloads', async () => {
    const { manager, fs, clock } = setup(RATE_100);
    const ac = new AbortController();
    await manager.start(ac.signal);
    ac.abort();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(PERIOD * 2);
    expect(fs.reads).toBe(1);
  });

  it('discards a reload that was in flight when stop() was called', async () => {
    const { manager, overrides, fs, clock } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    let release!: () => void;
    fs.gate = new Promise((r) => (release = r));
    fs.put(FILE, RATE_200);
    const tick = clock.advance(PERIOD);
    await Promise.resolve();
    const stopped = manager.stop();
    release();
    await Promise.all([tick, stopped]);
    expect(overrides.ingestionRate('tenant-a')).toBe(100);
  });

  it('rejects start with an already-aborted signal and a second start', async () => {
    const { manager } = setup(RATE_100);
    const ac = new AbortController();
    ac.abort();
    await expect(manager.start(ac.signal)).rejects.toThrow(/aborted/);
    const second = setup(RATE_100).manager;
    await second.start(new AbortController().signal);
    await expect(second.start(new AbortController().signal)).rejects.toThrow(
      /cannot start: it is running/,
    );
    await second.stop();
  });

  it('unsubscribed listeners are not called; a throwing listener is logged and counted', async () => {
    const { manager, fs, clock, metrics, logger } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    const calls: string[] = [];
    const unsubscribe = manager.onChange(() => calls.push('gone'));
    manager.onChange(() => {
      throw new Error('listener exploded');
    });
    manager.onChange(() => calls.push('kept'));
    unsubscribe();
    fs.put(FILE, RATE_200);
    await clock.advance(PERIOD);
    expect(calls).toEqual(['kept']);
    expect(await gauge(metrics, 'cortex_runtime_config_listener_errors_total')).toBe(1);
    expect(errorLines(logger).map((l) => l.fields['err'])).toEqual(['listener exploded']);
    await manager.stop();
  });

  it('renders the applied config for /runtime_config', async () => {
    const { manager } = setup(RATE_100);
    await manager.start(new AbortController().signal);
    expect(manager.render('diff', DEFAULTS)).toBe(
      'overrides:\n  tenant-a:\n    ingestion_rate: 100\n',
    );
    expect(manager.render('all', DEFAULTS)).toContain('ingestion_burst_size: 50000');
    await manager.stop();
  });

  it('serves an empty config before the first load', () => {
    const { manager, overrides } = setup(RATE_100);
    expect(manager.current().overrides.size).toBe(0);
    expect(overrides.limits('tenant-a')).toEqual(DEFAULTS);
  });

  it('rejects a bad reload period or an empty file name in the constructor', () => {
    const deps = {
      fs: new MemoryFileSystem(),
      clock: new ManualClock(),
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
    };
    expect(() => new RuntimeConfigManager({ file: FILE, periodMs: 0 }, deps)).toThrow(
      /must be positive, got 0ms/,
    );
    expect(() => new RuntimeConfigManager({ file: '', periodMs: 1000 }, deps)).toThrow(
      /file name is empty/,
    );
  });
});
