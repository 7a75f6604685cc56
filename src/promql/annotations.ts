// Warnings and infos a query collects while it runs (Prometheus util/annotations). The
// engine and the functions add them; the HTTP API returns them as `warnings` / `infos`,
// and the conformance runner checks them against `expect warn` / `expect info`.

export type AnnotationKind = 'warning' | 'info';

export interface Annotation {
  readonly kind: AnnotationKind;
  /**
   * The text exactly as Prometheus prints it, prefix and position included, e.g.
   * `PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "foo" (1:6)`.
   */
  readonly message: string;
}

/** An ordered set of annotations (duplicates by message are kept once, as Prometheus does). */
export class Annotations {
  private readonly byMessage = new Map<string, Annotation>();

  add(kind: AnnotationKind, message: string): void {
    if (!this.byMessage.has(message)) this.byMessage.set(message, { kind, message });
  }

  merge(other: Annotations): void {
    for (const a of other.all()) this.add(a.kind, a.message);
  }

  all(): Annotation[] {
    return [...this.byMessage.values()];
  }

  warnings(): string[] {
    return this.all()
      .filter((a) => a.kind === 'warning')
      .map((a) => a.message);
  }

  infos(): string[] {
    return this.all()
      .filter((a) => a.kind === 'info')
      .map((a) => a.message);
  }

  get size(): number {
    return this.byMessage.size;
  }
}
