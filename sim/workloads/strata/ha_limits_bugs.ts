import { decodeReplicaDesc, encodeReplicaDesc } from '../../../src/distributor/index.js';
import type { Env, KV } from '../../../src/runtime/index.js';
import { ForwardingFileSystem } from './block_disk.js';
import type { BrokenHaMode } from './config_ha.js';
import type { BrokenLimitsMode } from './config_limits.js';
import { RUNTIME_CONFIG_PATH } from './node_paths.js';

/** The HA tracker's KV prefix (`distributor.ha_tracker.kvstore.prefix`'s default). */
const HA_KV_PREFIX = 'ha-tracker/';

/**
 * The Env of a deliberately broken distributor, built from outside the product:
 * `never_failover` wraps its HA tracker's KV store, `off_by_one_burst` its file system (the
 * runtime-config file it reads). Every other distributor runs untouched.
 */
export function brokenDistributorEnv(env: Env, ha: BrokenHaMode, limits: BrokenLimitsMode): Env {
  let out = env;
  if (ha === 'never_failover') {
    const kvs = out.kvs;
    out = {
      ...out,
      kvs: {
        open: (spec, prefix) => {
          const kv = kvs.open(spec, prefix);
          return prefix === HA_KV_PREFIX ? new AlwaysFreshReplicaKV(kv, env) : kv;
        },
      },
    };
  }
  if (limits === 'off_by_one_burst') out = { ...out, fs: new DoubledBurstFileSystem(out.fs) };
  return out;
}

/**
 * `never_failover`: every CAS of the HA tracker sees the elected replica as heard from just
 * now (its stored `received_at` replaced by the distributor's clock), so the failover
 * timeout never passes and the first replica elected stays elected however long it is
 * silent. The KV itself is not changed by the wrapper.
 */
export class AlwaysFreshReplicaKV implements KV {
  constructor(
    private readonly inner: KV,
    private readonly env: Env,
  ) {}

  private fresh(value: Uint8Array | undefined): Uint8Array | undefined {
    if (value === undefined) return value;
    let desc;
    try {
      desc = decodeReplicaDesc(value);
    } catch {
      return value;
    }
    if (desc.deletedAt > 0) return value;
    return encodeReplicaDesc({ ...desc, receivedAt: this.env.clock.now() });
  }

  get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    return this.inner.get(key, signal);
  }
  list(prefix: string, signal?: AbortSignal): Promise<string[]> {
    return this.inner.list(prefix, signal);
  }
  cas(
    key: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    return this.inner.cas(key, (current) => update(this.fresh(current)), signal);
  }
  delete(key: string, signal?: AbortSignal): Promise<void> {
    return this.inner.delete(key, signal);
  }
  watchKey(
    key: string,
    signal: AbortSignal,
    onChange: (value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    return this.inner.watchKey(key, signal, onChange);
  }
  watchPrefix(
    prefix: string,
    signal: AbortSignal,
    onChange: (key: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    return this.inner.watchPrefix(prefix, signal, onChange);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * `off_by_one_burst`: the distributor reads the runtime-config file with every
 * `ingestion_burst_size` doubled, so its rate limiter lets one whole burst more through than
 * the limits in force allow. The file on disk (and every other node's view) is unchanged.
 */
export class DoubledBurstFileSystem extends ForwardingFileSystem {
  override async readFile(path: string): Promise<Uint8Array> {
    const data = await this.inner.readFile(path);
    if (path !== RUNTIME_CONFIG_PATH) return data;
    const text = new TextDecoder().decode(data);
    return new TextEncoder().encode(
      text.replace(
        /(ingestion_burst_size:\s*)(\d+)/g,
        (_, key: string, n: string) => `${key}${2 * Number(n)}`,
      ),
    );
  }
}
