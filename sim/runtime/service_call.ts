import { RpcError, type RandomStream } from '../../src/runtime/index.js';
import type { Incarnation, SimKernel } from '../kernel/index.js';
import { sampleLatency, type LatencySpec } from './latency.js';
import type { SimNetwork } from './sim_network.js';
import { toError } from './to_error.js';

/** Health of the shared services the nodes reach over the network (object store, KV, cache). */
export class ServiceHealth {
  private readonly down = new Set<string>();
  /** Error bursts: a service's injected error rate while a fault overrides its configured one. */
  private readonly errorRates = new Map<string, number>();

  setDown(service: string, down: boolean): void {
    if (down) this.down.add(service);
    else this.down.delete(service);
  }

  isDown(service: string): boolean {
    return this.down.has(service);
  }

  /** Overrides the service's injected error rate (an error burst); undefined ends it. */
  setErrorRate(service: string, rate: number | undefined): void {
    if (rate === undefined) this.errorRates.delete(service);
    else this.errorRates.set(service, rate);
  }

  /** The service's overridden error rate, if a burst is on. */
  errorRate(service: string): number | undefined {
    return this.errorRates.get(service);
  }

  healAll(): void {
    this.down.clear();
    this.errorRates.clear();
  }

  downList(): string[] {
    return [...this.down].sort();
  }
}

export interface ServiceLinkConfig {
  /** Service name as the network and fault schedule know it: `objstore`, `kv`, `cache`. */
  service: string;
  /** One-way latency between a node and the service. */
  latency: LatencySpec;
  /** Probability that a call fails with a transient error without reaching the service. */
  errorRate: number;
}

export interface ServiceLinkDeps {
  kernel: SimKernel;
  network: SimNetwork;
  health: ServiceHealth;
  /** The calling process incarnation: the reply is its event and dies with it. */
  owner: Incarnation;
  /** The service's stream (`bucket`, `kv`, `cache`): latencies and injected errors. */
  random: RandomStream;
}

/**
 * A client's path to a shared service: the request travels one latency, the operation runs
 * on the service (an event of the cluster, so it completes even if the client dies meanwhile),
 * and the answer travels back in an event of the client's incarnation. An unreachable service
 * (partitioned from the node, or down) answers 'unavailable'; injected errors answer
 * 'unavailable' without running the operation.
 */
export class ServiceLink {
  constructor(
    private readonly config: ServiceLinkConfig,
    private readonly deps: ServiceLinkDeps,
  ) {}

  get owner(): Incarnation {
    return this.deps.owner;
  }

  reachable(): boolean {
    const { network, health, owner } = this.deps;
    const service = this.config.service;
    return (
      !health.isDown(service) &&
      !network.isBlocked(owner.node, service) &&
      !network.isBlocked(service, owner.node)
    );
  }

  /** Runs `op` on the service and resolves with its outcome at the client. */
  call<T>(kind: string, detail: string, op: () => T | Promise<T>): Promise<T> {
    const { kernel, owner, random } = this.deps;
    const { service } = this.config;
    // Fixed number of draws per call, whatever happens, so outcomes don't shift other calls.
    const there = sampleLatency(this.config.latency, random);
    const back = sampleLatency(this.config.latency, random);
    const errorDraw = random.next();
    const label = `${owner.node}->${service} ${detail}`;
    return new Promise<T>((resolve, reject) => {
      const answer = (settle: () => void): void => {
        kernel.after(back, { owner, kind: `${service}.reply`, detail: `${kind} ${label}` }, settle);
      };
      kernel.after(there, { kind: `${service}.${kind}`, detail: label }, () => {
        if (!this.reachable()) {
          answer(() =>
            reject(
              new RpcError(
                'unavailable',
                `${service} unreachable from ${owner.node} (${kind} ${detail})`,
              ),
            ),
          );
          return;
        }
        if (errorDraw < (this.deps.health.errorRate(service) ?? this.config.errorRate)) {
          answer(() =>
            reject(
              new RpcError(
                'unavailable',
                `${service} transient error (injected) on ${kind} ${detail}`,
              ),
            ),
          );
          return;
        }
        let result: Promise<T>;
        try {
          result = Promise.resolve(op());
        } catch (err) {
          result = Promise.reject(toError(err));
        }
        result.then(
          (value) => answer(() => resolve(value)),
          (err: unknown) => answer(() => reject(toError(err))),
        );
      });
    });
  }
}
