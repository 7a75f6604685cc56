/**
 * A signal for work that stops when its caller gives up (`parent` aborts, its reason kept)
 * or when the work's own outcome is decided (`abort()`), such as the calls of a fan-out once
 * a quorum has answered. Not `AbortSignal.any`: a composite signal costs tens of
 * microseconds per query, and while it has listeners Node keeps it in a process-wide set
 * until it aborts (see followSignals in services). `release()` removes the one listener on
 * `parent`; call it when the work is over.
 */
export class ChildAbort {
  private readonly controller = new AbortController();
  private readonly onParent: (() => void) | undefined;

  constructor(private readonly parent?: AbortSignal) {
    if (parent === undefined) return;
    if (parent.aborted) {
      this.controller.abort(parent.reason);
      return;
    }
    this.onParent = (): void => this.controller.abort(parent.reason);
    parent.addEventListener('abort', this.onParent, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts the children with `reason` (made lazily: an abort's error is not free). */
  abort(reason: () => Error): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason());
  }

  release(): void {
    if (this.onParent !== undefined) this.parent?.removeEventListener('abort', this.onParent);
  }
}
