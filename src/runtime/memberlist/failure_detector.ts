/**
 * SWIM's failure detector, one round per probe interval: ping the next member; without an ack
 * within the probe timeout, ask `indirectChecks` other members to ping it for us; without any
 * ack by the end of the interval, suspect it. Also sends the protocol's packets and keeps
 * Lifeguard's local health score (0 healthy, up to 8 after failed probes).
 */
import type { Logger } from '../logger.js';
import type { Transport } from '../transport.js';
import type { MemberTable } from './members.js';
import type { MemberlistMetrics } from './metrics.js';
import {
  decodePacketResponse,
  packetRequest,
  type PacketRequest,
  type PacketResponse,
} from './wire.js';

const MAX_HEALTH_SCORE = 8;

export interface FailureDetectorConfig {
  name: string;
  probeIntervalMs: number;
  probeTimeoutMs: number;
  indirectChecks: number;
}

export class FailureDetector {
  private seq = 0;
  private health = 0;

  constructor(
    private readonly config: FailureDetectorConfig,
    private readonly deps: { transport: Transport; metrics: MemberlistMetrics; logger: Logger },
  ) {}

  get healthScore(): number {
    return this.health;
  }

  async sendPacket(
    address: string,
    packet: PacketRequest,
    timeoutMs: number,
  ): Promise<PacketResponse | undefined> {
    const req = packetRequest(packet);
    const m = this.deps.metrics;
    m.packetsSent.inc();
    m.packetsSentBytes.inc(req.body.length);
    try {
      return decodePacketResponse(await this.deps.transport.call(address, req, { timeoutMs }));
    } catch (err) {
      m.packetsSentErrors.inc();
      this.deps.logger.debug('memberlist: packet failed', {
        to: address,
        kind: packet.kind,
        err: String(err),
      });
      return undefined;
    }
  }

  async ping(member: { name: string; address: string }, timeoutMs: number): Promise<boolean> {
    const seq = ++this.seq;
    const req = packetRequest({ kind: 'ping', seq, node: member.name, from: this.config.name });
    this.deps.metrics.packetsSent.inc();
    this.deps.metrics.packetsSentBytes.inc(req.body.length);
    try {
      const res = decodePacketResponse(
        await this.deps.transport.call(member.address, req, { timeoutMs }),
      );
      return res.kind === 'ack' && res.seq === seq;
    } catch {
      this.deps.metrics.packetsSentErrors.inc();
      return false;
    }
  }

  /** One round: ping, then indirect pings, then suspicion (unless `running()` turned false). */
  async probe(table: MemberTable, running: () => boolean): Promise<void> {
    const target = table.nextProbeTarget();
    if (target === undefined) return;
    const incarnation = target.incarnation;
    if (await this.ping(target, this.config.probeTimeoutMs)) {
      this.setHealth(this.health - 1);
      return;
    }
    const helpers = table.randomMembers(
      this.config.indirectChecks,
      (m) => m.state === 'alive' && m.name !== target.name,
    );
    // The helpers ping with the probe timeout; the whole round fits in one probe interval.
    const waitMs = this.config.probeIntervalMs - this.config.probeTimeoutMs;
    const acks = await Promise.all(
      helpers.map(async (h) => {
        const packet: PacketRequest = {
          kind: 'ping-req',
          seq: ++this.seq,
          node: target.name,
          address: target.address,
          from: this.config.name,
        };
        return (await this.sendPacket(h.address, packet, waitMs))?.kind === 'ack';
      }),
    );
    // Reached indirectly: the member is fine, our own links may not be.
    if (acks.some(Boolean)) return;
    this.setHealth(this.health + 1);
    if (!running()) return;
    this.deps.logger.info('memberlist: member did not answer probes; suspecting it', {
      member: target.name,
      address: target.address,
    });
    table.suspectNode({ type: 'suspect', node: target.name, incarnation, from: this.config.name });
  }

  private setHealth(value: number): void {
    this.health = Math.min(MAX_HEALTH_SCORE, Math.max(0, value));
    this.deps.metrics.healthScore.set(this.health);
  }
}
