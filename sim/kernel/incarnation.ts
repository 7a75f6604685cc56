/**
 * One life of a simulated process on a node. Every event, timer and pending call a process
 * starts is owned by its incarnation; when the process crashes the incarnation dies and the
 * kernel silently drops everything it still owned, so no callback of a dead process ever runs.
 * A restart creates a new incarnation with the next number.
 */
export class Incarnation {
  private dead = false;
  private readonly deathHooks = new Set<() => void>();

  constructor(
    readonly node: string,
    readonly number: number,
  ) {}

  get alive(): boolean {
    return !this.dead;
  }

  /**
   * Harness-side cleanup to run when this incarnation dies (unregistering its transport,
   * ending watches it held on shared services). Hooks are simulator code, never process code.
   * Returns a function that unregisters the hook.
   */
  onDeath(hook: () => void): () => void {
    if (this.dead) {
      hook();
      return () => {};
    }
    this.deathHooks.add(hook);
    return () => this.deathHooks.delete(hook);
  }

  /** Marks the incarnation dead and runs its death hooks (in registration order). */
  kill(): void {
    if (this.dead) return;
    this.dead = true;
    const hooks = [...this.deathHooks];
    this.deathHooks.clear();
    for (const hook of hooks) hook();
  }

  toString(): string {
    return `${this.node}#${this.number}`;
  }
}
