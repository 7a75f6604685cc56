/**
 * The etcd KV client against a real etcd (Debian's etcd-server 3.4) on loopback: the shared
 * KV contract, plus what only a real store shows — CAS conflicts between two clients, watches
 * that survive an etcd restart, prefix isolation, endpoint failover and errors.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdKV, RealKVProvider } from '../src/runtime/real/index.js';
import { CapturingLogger, describeKVContract } from '../src/runtime/testing/index.js';
import { freePort } from './strata-process.js';
import { startEtcd, type EtcdService } from './services/etcd.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);
const s = (v: Uint8Array | undefined): string | undefined =>
  v === undefined ? undefined : dec.decode(v);

let etcd: EtcdService;
let run = 0;

beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

/** A client on a prefix no other test uses: a fresh, empty store as far as it can tell. */
function client(
  prefix: string,
  extra: Partial<ConstructorParameters<typeof EtcdKV>[0]> = {},
): EtcdKV {
  return new EtcdKV(
    { endpoints: [etcd.endpoint], dialTimeoutMs: 2_000, prefix, watchRetryMaxMs: 300, ...extra },
    { logger: new CapturingLogger() },
  );
}

/**
 * Writes a key with a separate process, synchronously: the only way to change the key inside
 * a (synchronous) CAS update function, between the client's read and its transaction.
 */
function putSync(key: string, value: string): void {
  const body = JSON.stringify({
    key: Buffer.from(key).toString('base64'),
    value: Buffer.from(value).toString('base64'),
  });
  const script = `fetch(process.argv[1], {method: 'POST', body: process.argv[2]}).then(r => { if (r.status !== 200) process.exit(1); })`;
  const r = spawnSync(process.execPath, ['-e', script, `${etcd.endpoint}/v3/kv/put`, body]);
  if (r.status !== 0) throw new Error(`put ${key} failed: ${r.stderr.toString()}`);
}

describeKVContract('EtcdKV (real etcd)', () => {
  const prefix = `contract-${++run}/`;
  return Promise.resolve({
    kv: client(prefix),
    peer: client(prefix),
    cleanup: () => Promise.resolve(),
  });
});

describe('EtcdKV against a real etcd', () => {
  it('retries a CAS whose key another client changed between read and write', async () => {
    const kv = client('conflict/');
    try {
      const seen: (string | undefined)[] = [];
      await kv.cas('ring', (cur) => {
        seen.push(s(cur));
        if (seen.length === 1) putSync('conflict/ring', 'interloper');
        return b(`mine after ${s(cur) ?? 'nothing'}`);
      });
      expect(seen).toEqual([undefined, 'interloper']);
      expect(s(await kv.get('ring'))).toBe('mine after interloper');
    } finally {
      await kv.close();
    }
  });

  it('gives up after the retry bound when every attempt conflicts, naming the key', async () => {
    const kv = client('bound/', { maxCasRetries: 3 });
    try {
      await kv.cas('k', () => b('initial'));
      let attempts = 0;
      const err: unknown = await kv
        .cas('k', () => {
          attempts++;
          putSync('bound/k', `interloper ${attempts}`);
          return b('mine');
        })
        .catch((e: unknown) => e);
      expect(attempts).toBe(3);
      expect(String(err)).toMatch(/"k".*"bound\/k".*3 attempts: 3 modified concurrently/);
      expect(s(await kv.get('k'))).toBe('interloper 3');
    } finally {
      await kv.close();
    }
  });

  it('keeps prefixes apart, including prefixes that extend one another', async () => {
    const a = client('iso/a/');
    const ab = client('iso/ab/');
    const ac = new AbortController();
    const seenByA: string[] = [];
    const watch = a.watchPrefix('', ac.signal, (k) => {
      seenByA.push(k);
      return true;
    });
    try {
      await a.cas('x', () => b('from a'));
      await ab.cas('x', () => b('from ab'));
      await ab.cas('y', () => b('from ab'));
      expect(s(await a.get('x'))).toBe('from a');
      expect(s(await ab.get('x'))).toBe('from ab');
      expect(await a.list('')).toEqual(['x']);
      expect(await ab.list('')).toEqual(['x', 'y']);
      await ab.delete('x');
      expect(s(await a.get('x'))).toBe('from a');
      await a.cas('z', () => b('last'));
      await expect.poll(() => seenByA.includes('z')).toBe(true);
      expect([...new Set(seenByA)]).toEqual(['x', 'z']);
    } finally {
      ac.abort();
      await watch;
      await a.close();
      await ab.close();
    }
  });

  it('keeps watches running across an etcd restart and delivers the latest value', async () => {
    const watcher = client('restart/');
    const writer = client('restart/');
    const seenKey: (string | undefined)[] = [];
    const seenPrefix: [string, string | undefined][] = [];
    const ac = new AbortController();
    const watches = [
      watcher.watchKey('w', ac.signal, (v) => {
        seenKey.push(s(v));
        return true;
      }),
      watcher.watchPrefix('', ac.signal, (k, v) => {
        seenPrefix.push([k, s(v)]);
        return true;
      }),
    ];
    try {
      await writer.cas('w', () => b('before'));
      await writer.cas('gone', () => b('soon deleted'));
      await expect.poll(() => seenKey.at(-1)).toBe('before');
      await expect.poll(() => seenPrefix.some(([k]) => k === 'gone')).toBe(true);
      await etcd.restart({ kill: true });
      // The writer's pooled connections died with etcd: a plain read must still succeed.
      expect(s(await writer.get('w'))).toBe('before');
      await writer.cas('w', () => b('after restart'));
      await writer.delete('gone');
      await expect.poll(() => seenKey.at(-1), { timeout: 15_000 }).toBe('after restart');
      await expect
        .poll(() => seenPrefix.some(([k, v]) => k === 'gone' && v === undefined), {
          timeout: 15_000,
        })
        .toBe(true);
      expect(seenKey.filter((v) => v === 'before')).toHaveLength(1);
    } finally {
      ac.abort();
      await Promise.all(watches);
      await watcher.close();
      await writer.close();
    }
  }, 60_000);

  it('fails over to the next endpoint and names every endpoint and the operation when all fail', async () => {
    const deadPort = await freePort();
    const dead = `http://127.0.0.1:${deadPort}`;
    const kv = client('failover/', { endpoints: [dead, etcd.endpoint] });
    const allDead = client('failover/', { endpoints: [dead] });
    try {
      await kv.cas('k', () => b('v'));
      expect(s(await kv.get('k'))).toBe('v');
      await expect(allDead.get('k')).rejects.toThrow(
        new RegExp(`etcd get "k" failed on every endpoint: ${dead}: .*ECONNREFUSED`),
      );
      await expect(allDead.cas('k', () => b('x'))).rejects.toThrow(
        /failed to CAS key "k".*ECONNREFUSED/,
      );
    } finally {
      await kv.close();
      await allDead.close();
    }
  });

  it('reports what etcd rejects without retrying it', async () => {
    const kv = client('reject/');
    try {
      // Over etcd's default request size limit (1.5 MiB), under the gateway's 2 MiB.
      const huge = new Uint8Array(1.7 * 1024 * 1024);
      let calls = 0;
      await expect(
        kv.cas('big', () => {
          calls++;
          return huge;
        }),
      ).rejects.toThrow(
        /etcd cas "big" at http:\/\/127\.0\.0\.1:\d+: HTTP 4\d\d: etcdserver: request is too large/,
      );
      expect(calls).toBe(1);
    } finally {
      await kv.close();
    }
  });

  it('is what RealKVProvider opens for etcd, and multi over etcd mirrors to the secondary', async () => {
    const provider = new RealKVProvider({ logger: new CapturingLogger() });
    const spec = { store: 'etcd' as const, endpoints: [etcd.endpoint], dialTimeoutMs: 2_000 };
    const viaEtcd = provider.open(spec, 'provider/');
    const multi = provider.open(
      { store: 'multi', primary: spec, secondary: { store: 'inmemory' }, mirrorEnabled: true },
      'provider/',
    );
    const memory = provider.open({ store: 'inmemory' }, 'provider/');
    try {
      expect(viaEtcd).toBeInstanceOf(EtcdKV);
      await multi.cas('ring', () => b('desc'));
      expect(s(await viaEtcd.get('ring'))).toBe('desc');
      expect(s(await memory.get('ring'))).toBe('desc');
      provider.switchPrimary('inmemory');
      await memory.cas('ring', () => b('only in memory'));
      expect(s(await multi.get('ring'))).toBe('only in memory');
    } finally {
      await Promise.all([viaEtcd.close(), multi.close(), memory.close()]);
    }
  });
});
