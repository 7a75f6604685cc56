import { describe, expect, it } from 'vitest';
import { FileSystemError, createSeededRandom, type FileSystem } from '../../src/runtime/index.js';
import { describeFileSystemContract } from '../../src/runtime/testing/index.js';
import { Incarnation, SimKernel } from '../kernel/index.js';
import { TEST_EPOCH_MS, createTestWorld } from '../testing/index.js';
import { defaultSimRuntimeConfig } from './default_config.js';
import { SimDisk } from './sim_disk.js';
import { SimFileSystem } from './sim_filesystem.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A world with one node whose process is a script run against its Env.fs. */
async function diskWorld(seed = 'disk') {
  const world = createTestWorld({ seed });
  const node = world.cluster.addNode('n', () => ({
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  }));
  world.kernel.after(0, { kind: 'boot' }, () => world.cluster.start('n'));
  await world.kernel.run();
  const fsOf = (): FileSystem => node.env!.fs;
  /** Runs `script` as the node's code, inside the simulation, and waits for it. */
  const exec = async <T>(script: (fs: FileSystem) => Promise<T>): Promise<T> => {
    let out: { value: T } | { error: unknown } | undefined;
    world.kernel.after(0, { kind: 'script' }, () => {
      script(fsOf()).then(
        (value) => (out = { value }),
        (error: unknown) => (out = { error }),
      );
    });
    await world.kernel.run();
    if (out === undefined) throw new Error('script did not finish');
    if ('error' in out) throw out.error;
    return out.value;
  };
  return { ...world, node, exec };
}

describe('SimFileSystem durability model', () => {
  it('a process crash keeps everything written, synced or not', async () => {
    const w = await diskWorld();
    await w.exec(async (fs) => {
      await fs.mkdir('/data');
      const f = await fs.open('/data/log', 'a');
      await f.append(enc.encode('synced\n'));
      await f.sync();
      await f.append(enc.encode('unsynced\n'));
      await fs.writeFile('/data/other', 'never synced');
    });
    w.kernel.after(0, { kind: 'crash' }, () => {
      w.cluster.crash('n');
      w.cluster.restart('n');
    });
    await w.kernel.run();
    const after = await w.exec(async (fs) => [
      dec.decode(await fs.readFile('/data/log')),
      dec.decode(await fs.readFile('/data/other')),
    ]);
    expect(after).toEqual(['synced\nunsynced\n', 'never synced']);
  });

  it('power loss keeps only synced data under synced directory entries', async () => {
    const w = await diskWorld();
    w.services.config.disk.tornWrites = false;
    await w.exec(async (fs) => {
      await fs.mkdir('/data');
      await fs.syncDir('/');
      const log = await fs.open('/data/log', 'a');
      await log.append(enc.encode('one\n'));
      await log.sync();
      await fs.syncDir('/data');
      await log.append(enc.encode('two\n'));
      // A directory entry synced, but the data never: the file comes back empty.
      const empty = await fs.open('/data/entry-only', 'w');
      await fs.syncDir('/data');
      await empty.write(0, enc.encode('lost bytes'));
      // A file whose data is synced but whose directory entry is not: lost.
      const orphan = await fs.open('/data/orphan', 'w');
      await orphan.write(0, enc.encode('data'));
      await orphan.sync();
    });
    w.kernel.after(0, { kind: 'power' }, () => {
      w.cluster.powerLoss('n');
      w.cluster.restart('n');
    });
    await w.kernel.run();
    const state = await w.exec(async (fs) => ({
      log: dec.decode(await fs.readFile('/data/log')),
      orphan: await fs.exists('/data/orphan'),
      entryOnly: (await fs.readFile('/data/entry-only')).length,
      listing: await fs.readdir('/data'),
    }));
    expect(state).toEqual({
      log: 'one\n',
      orphan: false,
      entryOnly: 0,
      listing: ['entry-only', 'log'],
    });
  });

  it('unsynced namespace changes (mkdir, rename, remove) are lost on power loss', async () => {
    const w = await diskWorld();
    await w.exec(async (fs) => {
      await fs.writeFile('/a', 'A');
      const h = await fs.open('/a', 'r+');
      await h.sync();
      await fs.syncDir('/');
      await fs.rename('/a', '/b');
      await fs.mkdir('/newdir');
    });
    w.kernel.after(0, { kind: 'power' }, () => {
      w.cluster.powerLoss('n');
      w.cluster.restart('n');
    });
    await w.kernel.run();
    expect(await w.exec((fs) => fs.readdir('/'))).toEqual(['a']);
    // And a synced rename survives.
    await w.exec(async (fs) => {
      await fs.rename('/a', '/b');
      await fs.syncDir('/');
    });
    w.kernel.after(0, { kind: 'power' }, () => {
      w.cluster.powerLoss('n');
      w.cluster.restart('n');
    });
    await w.kernel.run();
    expect(
      await w.exec(async (fs) => [await fs.readdir('/'), dec.decode(await fs.readFile('/b'))]),
    ).toEqual([['b'], 'A']);
  });

  it('power loss tears unsynced appends at a seeded point (some seeds keep a strict prefix)', async () => {
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 30; seed++) {
      const w = await diskWorld(`tear-${seed}`);
      await w.exec(async (fs) => {
        const f = await fs.open('/log', 'a');
        await fs.syncDir('/');
        await f.append(enc.encode('durable|'));
        await f.sync();
        await f.append(enc.encode('0123456789'));
      });
      w.kernel.after(0, { kind: 'power' }, () => w.cluster.powerLoss('n'));
      await w.kernel.run();
      const content = dec.decode(w.node.disk.readCurrent('/log'));
      expect(content.startsWith('durable|')).toBe(true);
      expect('durable|0123456789'.startsWith(content)).toBe(true);
      outcomes.add(content);
    }
    // Nothing kept, everything kept and partial tears all happen across seeds.
    expect(outcomes.has('durable|')).toBe(true);
    expect(
      [...outcomes].some(
        (c) => c.length > 'durable|'.length && c.length < 'durable|0123456789'.length,
      ),
    ).toBe(true);
  });

  it('tearing is deterministic per seed', async () => {
    const tornLength = async (seed: string): Promise<number> => {
      const w = await diskWorld(seed);
      await w.exec(async (fs) => {
        const f = await fs.open('/log', 'a');
        await fs.syncDir('/');
        await f.append(new Uint8Array(1000));
      });
      w.kernel.after(0, { kind: 'power' }, () => w.cluster.powerLoss('n'));
      await w.kernel.run();
      return w.node.disk.readCurrent('/log')!.length;
    };
    expect(await tornLength('x1')).toBe(await tornLength('x1'));
  });

  it('an overwrite of synced bytes reverts to the synced content on power loss', async () => {
    const w = await diskWorld();
    await w.exec(async (fs) => {
      const f = await fs.open('/f', 'w');
      await fs.syncDir('/');
      await f.write(0, enc.encode('AAAA'));
      await f.sync();
      await f.write(1, enc.encode('BB'));
      await f.truncate(3);
    });
    expect(dec.decode(w.node.disk.readCurrent('/f'))).toBe('ABB');
    expect(dec.decode(w.node.disk.readDurable('/f'))).toBe('AAAA');
    w.kernel.after(0, { kind: 'power' }, () => w.cluster.powerLoss('n'));
    await w.kernel.run();
    expect(dec.decode(w.node.disk.readCurrent('/f'))).toBe('AAAA');
  });

  it('operations complete in issue order and only at their completion time', async () => {
    const w = await diskWorld();
    const order: string[] = [];
    await w.exec(async (fs) => {
      const f = await fs.open('/f', 'a');
      await Promise.all([
        f.append(enc.encode('1')).then(() => order.push('1')),
        f.append(enc.encode('2')).then(() => order.push('2')),
        f.sync().then(() => order.push('sync')),
        f.append(enc.encode('3')).then(() => order.push('3')),
      ]);
    });
    expect(order).toEqual(['1', '2', 'sync', '3']);
    expect(dec.decode(w.node.disk.readCurrent('/f'))).toBe('123');
  });

  it('reports errors with FileSystemError codes naming the path', async () => {
    const w = await diskWorld();
    const err = await w.exec((fs) => fs.readFile('/missing/file')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileSystemError);
    expect((err as FileSystemError).code).toBe('ENOENT');
    expect((err as Error).message).toContain('/missing/file');
  });
});

describe('SimDisk paths', () => {
  it('normalises . and .. and keeps relative paths under the root', () => {
    expect(SimDisk.join(SimDisk.split('a/./b/../c'))).toBe('/a/c');
    expect(SimDisk.join(SimDisk.split('/../../x'))).toBe('/x');
  });
});

// The shared FileSystem contract, run against the simulated disk with a kernel that runs in
// the background and executes each operation's events as the suite issues them.
describeFileSystemContract('simulated disk', () => {
  const random = createSeededRandom('fs-contract');
  const kernel = new SimKernel({ epochMs: TEST_EPOCH_MS, scheduling: random.stream('scheduling') });
  const disk = new SimDisk('contract', () => kernel.now());
  const config = defaultSimRuntimeConfig().disk;
  const fs = new SimFileSystem(
    { opLatency: config.opLatency, syncLatency: config.syncLatency },
    { kernel, owner: new Incarnation('contract', 1), disk, random: random.stream('disk') },
  );
  const background = kernel.runInBackground();
  return Promise.resolve({
    fs,
    cleanup: async () => {
      await background.stop();
    },
  });
});
