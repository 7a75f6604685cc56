// The points of one series inside a sliding range window: a power-of-two ring of
// timestamps and values that grows as needed, so sliding forward never copies the window.

/** A growable ring of (t, f) points. */
export class PointRing {
  private ts = new Float64Array(16);
  private fs = new Float64Array(16);
  private head = 0;
  length = 0;

  push(t: number, f: number): void {
    if (this.length === this.ts.length) this.grow();
    const i = (this.head + this.length) & (this.ts.length - 1);
    this.ts[i] = t;
    this.fs[i] = f;
    this.length++;
  }

  firstT(): number {
    return this.ts[this.head] as number;
  }

  shift(): void {
    this.head = (this.head + 1) & (this.ts.length - 1);
    this.length--;
  }

  t(i: number): number {
    return this.ts[(this.head + i) & (this.ts.length - 1)] as number;
  }

  f(i: number): number {
    return this.fs[(this.head + i) & (this.fs.length - 1)] as number;
  }

  private grow(): void {
    const cap = this.ts.length * 2;
    const ts = new Float64Array(cap);
    const fs = new Float64Array(cap);
    for (let i = 0; i < this.length; i++) {
      ts[i] = this.t(i);
      fs[i] = this.f(i);
    }
    this.ts = ts;
    this.fs = fs;
    this.head = 0;
  }
}
