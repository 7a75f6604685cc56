/** One KV message sent or received, as the status page lists it (dskit's `Message`). */
export interface MessageRecord {
  /** Unique per member, shared by both buffers. */
  readonly id: number;
  readonly timeMs: number;
  readonly sizeBytes: number;
  readonly key: string;
  readonly codec: string;
  readonly deleted: boolean;
  /** Sent: the version the message reflects. Received: the local version after it (0: no change). */
  readonly version: number;
  /** Parts of the value that changed (ring instance IDs), as computed here. */
  readonly changes: readonly string[];
}

/**
 * The sent and received KV messages kept for troubleshooting, each buffer bounded by
 * `-memberlist.message-history-buffer-bytes` (0 keeps nothing, as in dskit).
 */
export class MessageHistory {
  private readonly sent: MessageRecord[] = [];
  private readonly received: MessageRecord[] = [];
  private sentBytes = 0;
  private receivedBytes = 0;
  private counter = 0;

  constructor(private readonly limitBytes: number) {}

  get enabled(): boolean {
    return this.limitBytes > 0;
  }

  addSent(record: Omit<MessageRecord, 'id'>): void {
    if (!this.enabled) return;
    this.sentBytes = this.push(this.sent, this.sentBytes, record);
  }

  addReceived(record: Omit<MessageRecord, 'id'>): void {
    if (!this.enabled) return;
    this.receivedBytes = this.push(this.received, this.receivedBytes, record);
  }

  /** Copies of both buffers, oldest first. */
  snapshot(): { sent: MessageRecord[]; received: MessageRecord[] } {
    return { sent: [...this.sent], received: [...this.received] };
  }

  clear(): void {
    this.sent.length = 0;
    this.received.length = 0;
    this.sentBytes = 0;
    this.receivedBytes = 0;
  }

  private push(buffer: MessageRecord[], bytes: number, record: Omit<MessageRecord, 'id'>): number {
    buffer.push({ ...record, id: ++this.counter });
    let total = bytes + record.sizeBytes;
    while (buffer.length > 0 && total > this.limitBytes) total -= buffer.shift()!.sizeBytes;
    return total;
  }
}
