import { Incarnation, type SimKernel } from '../kernel/index.js';
import {
  SimDisk,
  SimHttpNetwork,
  createSimNodeEnv,
  type PowerLossOutcome,
  type SimNodeEnv,
  type SimServices,
} from '../runtime/index.js';
import type { SimProcess, SimProcessFactory } from './sim_process.js';

export type NodeState = 'down' | 'up' | 'stopping';

/** One machine of the simulated cluster: a disk that outlives its processes, and the current process. */
export class SimNode {
  readonly disk: SimDisk;
  state: NodeState = 'down';
  /** Number of the current (or last) incarnation; 0 before the first start. */
  incarnationNumber = 0;
  incarnation: Incarnation | undefined;
  env: SimNodeEnv | undefined;
  process: SimProcess | undefined;
  skewMs: number;
  private stopController: AbortController | undefined;

  constructor(
    readonly name: string,
    readonly factory: SimProcessFactory,
    now: () => number,
    skewMs: number,
  ) {
    this.disk = new SimDisk(name, now);
    this.skewMs = skewMs;
  }

  /** @internal used by SimCluster */
  beginLife(controller: AbortController): void {
    this.stopController = controller;
  }

  /** @internal used by SimCluster */
  abortLife(): void {
    this.stopController?.abort();
  }
}

export interface SimClusterDeps {
  services: SimServices;
}

/**
 * The nodes of a simulation and their lifecycle: start, graceful stop, crash (the process
 * and everything it owned vanish; the page cache survives), power loss (as crash, and the
 * disk drops or tears unsynced data), restart (a new incarnation over the same disk).
 * Call these from inside kernel events (the scenario schedule does) so process code runs as
 * simulated code.
 */
export class SimCluster {
  private readonly nodeMap = new Map<string, SimNode>();
  /** The HTTP plane: every node's HTTP listener, over the services' network. */
  readonly http: SimHttpNetwork;

  constructor(private readonly deps: SimClusterDeps) {
    this.http = new SimHttpNetwork({
      kernel: deps.services.kernel,
      network: deps.services.network,
    });
  }

  private get kernel(): SimKernel {
    return this.deps.services.kernel;
  }

  addNode(name: string, factory: SimProcessFactory, opts: { skewMs?: number } = {}): SimNode {
    if (this.nodeMap.has(name)) throw new Error(`node ${name} already exists`);
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
      throw new Error(
        `invalid node name ${JSON.stringify(name)}: use letters, digits, '_', '.', '-'`,
      );
    }
    const kernel = this.kernel;
    const node = new SimNode(name, factory, () => kernel.now(), opts.skewMs ?? 0);
    this.nodeMap.set(name, node);
    return node;
  }

  node(name: string): SimNode {
    const node = this.nodeMap.get(name);
    if (node === undefined)
      throw new Error(
        `unknown node ${JSON.stringify(name)}; nodes: ${[...this.nodeMap.keys()].join(', ')}`,
      );
    return node;
  }

  nodes(): SimNode[] {
    return [...this.nodeMap.values()];
  }

  /** Starts a new incarnation of a node that is down (first start or restart). */
  start(name: string): void {
    const node = this.node(name);
    if (node.state !== 'down') throw new Error(`cannot start ${name}: it is ${node.state}`);
    const incarnation = new Incarnation(name, ++node.incarnationNumber);
    const env = createSimNodeEnv(this.deps.services, {
      owner: incarnation,
      disk: node.disk,
      skewMs: () => node.skewMs,
      http: this.http,
    });
    node.incarnation = incarnation;
    node.env = env;
    node.state = 'up';
    const controller = new AbortController();
    node.beginLife(controller);
    this.note(node, 'info', 'process starting');
    let process: SimProcess;
    try {
      process = node.factory(env);
    } catch (err) {
      this.kernel.reportError(`constructing the process of ${incarnation.toString()}`, err);
      return;
    }
    node.process = process;
    let started: Promise<void>;
    try {
      started = process.start(controller.signal);
    } catch (err) {
      started = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    started.catch((err: unknown) => {
      if (incarnation.alive) this.kernel.reportError(`start of ${incarnation.toString()}`, err);
    });
  }

  /** The process dies at once: no stop(), no more callbacks; the disk keeps its page cache. */
  crash(name: string): void {
    const node = this.node(name);
    if (node.state === 'down') return;
    this.kill(node, 'process crashed (simulated)');
  }

  /** As crash, and the disk loses what was not synced (tearing appends when configured). */
  powerLoss(name: string): PowerLossOutcome {
    const node = this.node(name);
    if (node.state !== 'down') this.kill(node, 'power lost (simulated)');
    const tearing = this.deps.services.config.disk.tornWrites
      ? this.deps.services.deps.random.stream('disk')
      : undefined;
    const outcome = node.disk.powerLoss(tearing);
    if (outcome.torn.length > 0 || outcome.reverted.length > 0) {
      const torn = outcome.torn.map((t) => `${t.path} kept ${t.kept}/${t.unsynced}B`).join(', ');
      this.note(node, 'warn', 'disk lost unsynced data', {
        reverted: outcome.reverted.join(','),
        torn,
      });
    }
    return outcome;
  }

  /** Starts a new incarnation of a down node (after crash or power loss). */
  restart(name: string): void {
    const node = this.node(name);
    if (node.state !== 'down') this.kill(node, 'process killed for restart (simulated)');
    this.start(name);
  }

  /**
   * Graceful stop: aborts the process's start signal, awaits its stop(), closes its transport,
   * then ends the incarnation (dropping leftover timers).
   */
  async stop(name: string): Promise<void> {
    const node = this.node(name);
    if (node.state !== 'up') return;
    node.state = 'stopping';
    const incarnation = node.incarnation!;
    node.abortLife();
    try {
      await node.process?.stop();
    } catch (err) {
      this.kernel.reportError(`stop of ${incarnation.toString()}`, err);
    }
    await node.env?.transport.close();
    if (node.incarnation === incarnation && node.state === 'stopping')
      this.kill(node, 'process stopped');
  }

  setSkew(name: string, skewMs: number): void {
    this.node(name).skewMs = skewMs;
  }

  private kill(node: SimNode, why: string): void {
    this.note(node, 'warn', why);
    node.incarnation?.kill();
    node.process = undefined;
    node.env = undefined;
    node.state = 'down';
  }

  /** A harness line in the node's log (the process's own logger may be dead). */
  private note(
    node: SimNode,
    level: 'info' | 'warn',
    msg: string,
    fields: Record<string, unknown> = {},
  ): void {
    this.deps.services.logs.push({
      time: this.kernel.now(),
      node: node.name,
      incarnation: node.incarnationNumber,
      level,
      msg: `[sim] ${msg}`,
      fields,
    });
  }
}
