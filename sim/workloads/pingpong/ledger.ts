/**
 * The acknowledged-write ledger of pingpong: what the sender sent and what the receiver
 * acknowledged, with virtual times. It lives in the harness, outside every process (like a
 * Jepsen history), so it survives crashes and is what the checks trust.
 */
export class AckLedger {
  private readonly sentAt = new Map<number, number>();
  private readonly ackedAt = new Map<number, number>();
  private attemptCount = 0;
  private ackCount = 0;

  /** Records an attempt to send `id`; the first attempt's time is kept. */
  sent(id: number, at: number): void {
    this.attemptCount++;
    if (!this.sentAt.has(id)) this.sentAt.set(id, at);
  }

  /** Records an ack of `id`; the first ack's time is kept. */
  acked(id: number, at: number): void {
    this.ackCount++;
    if (!this.ackedAt.has(id)) this.ackedAt.set(id, at);
  }

  get sentIds(): ReadonlyMap<number, number> {
    return this.sentAt;
  }

  get ackedIds(): ReadonlyMap<number, number> {
    return this.ackedAt;
  }

  get attempts(): number {
    return this.attemptCount;
  }

  get acks(): number {
    return this.ackCount;
  }
}
