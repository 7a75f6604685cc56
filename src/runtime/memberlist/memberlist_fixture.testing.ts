/**
 * Test support: memberlist KVs on a MemoryNetwork driven by one ManualClock. Test files only.
 */
import { MemoryNetwork, type MemoryTransport } from '../memory/index.js';
import {
  RpcError,
  type CallOptions,
  type RpcRequest,
  type RpcResponse,
  type Transport,
} from '../transport.js';
import { newMetricsRegistry, type MetricsRegistry } from '../metrics.js';
import { createSeededRandom } from '../prng.js';
import { CapturingLogger, ManualClock } from '../testing/index.js';
import type { MergeCodec } from './codec.js';
import type { MemberlistKVConfig } from './config.js';
import { MemberlistKV } from './memberlist_kv.js';

/** Fast protocol timings for unit tests (virtual time anyway). */
const FAST: Partial<MemberlistKVConfig> = {
  randomizeNodeName: false,
  gossipIntervalMs: 100,
  probeIntervalMs: 1_000,
  probeTimeoutMs: 300,
  pullPushIntervalMs: 5_000,
  gossipToDeadNodesTimeMs: 5_000,
  minJoinBackoffMs: 100,
  maxJoinBackoffMs: 1_000,
  maxJoinRetries: 3,
  leaveTimeoutMs: 2_000,
  broadcastTimeoutOnShutdownMs: 2_000,
  messageHistoryBufferBytes: 64 * 1024,
};

/** A MemoryTransport whose outgoing calls can be cut too (a crashed or isolated process). */
class CuttableTransport implements Transport {
  cut = false;
  constructor(readonly inner: MemoryTransport) {}
  get address(): string | undefined {
    return this.inner.address;
  }
  handle(method: string, handler: Parameters<Transport['handle']>[1]): void {
    this.inner.handle(method, handler);
  }
  listen(): Promise<string> {
    return this.inner.listen();
  }
  call(address: string, req: RpcRequest, opts?: CallOptions): Promise<RpcResponse> {
    if (this.cut) return Promise.reject(new RpcError('unavailable', 'network cut'));
    return this.inner.call(address, req, opts);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

export interface TestMember {
  name: string;
  kv: MemberlistKV;
  transport: CuttableTransport;
  registry: MetricsRegistry;
  logger: CapturingLogger;
  run: AbortController;
  running: Promise<void>;
}

export class TestCluster {
  readonly clock = new ManualClock(Date.UTC(2026, 0, 1));
  readonly network = new MemoryNetwork();
  readonly members = new Map<string, TestMember>();

  constructor(private readonly codecs: readonly MergeCodec<unknown>[] = []) {}

  /** Builds, listens and starts a member named `name` (its address is its name). */
  async add(name: string, config: Partial<MemberlistKVConfig> = {}): Promise<TestMember> {
    const transport = new CuttableTransport(this.network.transport(name));
    await transport.listen();
    const registry = newMetricsRegistry();
    const logger = new CapturingLogger();
    const kv = new MemberlistKV(
      { ...FAST, nodeName: name, ...config },
      {
        transport,
        clock: this.clock,
        random: createSeededRandom(`member-${name}`),
        logger,
        registry,
        nodeName: name,
        codecs: this.codecs,
      },
    );
    await kv.start();
    const run = new AbortController();
    const running = kv.run(run.signal);
    running.catch(() => undefined);
    const member = { name, kv, transport, registry, logger, run, running };
    this.members.set(name, member);
    return member;
  }

  member(name: string): TestMember {
    const m = this.members.get(name);
    if (m === undefined) throw new Error(`no member ${name}`);
    return m;
  }

  /** Advances virtual time in small steps so promise chains between timers settle. */
  async advance(ms: number, stepMs = 50): Promise<void> {
    for (let t = 0; t < ms; t += stepMs) await this.clock.advance(Math.min(stepMs, ms - t));
  }

  /** Advances until `cond` holds (checked every step); returns the virtual time it took. */
  async until(cond: () => boolean, maxMs: number, stepMs = 50): Promise<number> {
    const start = this.clock.now();
    while (!cond()) {
      if (this.clock.now() - start > maxMs) throw new Error(`condition not met within ${maxMs}ms`);
      await this.clock.advance(stepMs);
    }
    return this.clock.now() - start;
  }

  /** Cuts every link of `name` both ways (its process keeps running, talking to nobody). */
  isolate(name: string): void {
    this.network.disconnect(name);
    this.member(name).transport.cut = true;
  }

  heal(name: string): void {
    this.network.reconnect(name);
    this.member(name).transport.cut = false;
  }

  /** `observer`'s view of `name`'s state, or undefined when unknown. */
  stateOf(observer: string, name: string): string | undefined {
    return this.member(observer)
      .kv.status()
      .members.find((m) => m.name === name)?.state;
  }

  async stopAll(): Promise<void> {
    for (const m of this.members.values()) {
      m.run.abort();
      const stopping = m.kv.stop();
      await this.advance(3_000);
      await stopping;
    }
  }
}
