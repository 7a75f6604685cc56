/**
 * The kernel's priority queue: a binary min-heap ordered by (virtual time, seeded tie-break,
 * insertion sequence). The tie-break decides the order of events due at the same virtual
 * time, so different seeds explore different interleavings; the insertion sequence makes the
 * order total even when two tie-breaks collide.
 */
export interface QueuedEvent {
  readonly time: number;
  readonly tieBreak: number;
  readonly seq: number;
}

export class EventQueue<E extends QueuedEvent> {
  private readonly heap: E[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(event: E): void {
    const heap = this.heap;
    heap.push(event);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(event, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = event;
  }

  peek(): E | undefined {
    return this.heap[0];
  }

  pop(): E | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (top === undefined) return undefined;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let i = 0;
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let child = l;
      if (r < n && before(heap[r]!, heap[l]!)) child = r;
      if (!before(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

function before(a: QueuedEvent, b: QueuedEvent): boolean {
  if (a.time !== b.time) return a.time < b.time;
  if (a.tieBreak !== b.tieBreak) return a.tieBreak < b.tieBreak;
  return a.seq < b.seq;
}
