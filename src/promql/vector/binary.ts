// Binary operators over step columns. Vector matching is resolved once per query — join
// signatures per input series, the candidate (many-side, one-side) pairs and their result
// labels — because labels do not change between steps; each step then only checks which
// columns are present, with the default engine's duplicate and multiple-match errors. In a
// range evaluation, outputs with equal label sets share one column and colliding at a step
// is the "same labelset" error, as in Prometheus's rangeEval (checked after the step's
// operation, which reports its own errors first).
import { Labels } from '../../model/index.js';
import { QueryExecutionError } from '../errors.js';
import { scalarBinop } from '../engine/index.js';
import type { BinaryOp, VectorMatching } from '../parser/index.js';
import {
  AppearanceOrder,
  firstError,
  pullAll,
  StepBatch,
  type SeriesMeta,
  type StepGrid,
  type VectorOperator,
} from './batch.js';
import {
  dropMetadataLabels,
  keepLabels,
  matchLabels,
  setLabel,
  signatureFunction,
} from './labels.js';
import { dropsNamesNow, withNamesDropped, type PlanContext } from './plan_context.js';

function isComparison(op: BinaryOp): boolean {
  return op === '==' || op === '!=' || op === '>' || op === '<' || op === '>=' || op === '<=';
}

function changesMetricSchema(op: BinaryOp): boolean {
  return (
    op === '+' ||
    op === '-' ||
    op === '*' ||
    op === '/' ||
    op === '^' ||
    op === '%' ||
    op === 'atan2'
  );
}

/** Element ∘ element: the value, and whether a filtering comparison keeps the sample. */
function elemBinop(op: BinaryOp, l: number, r: number): [number, boolean] {
  switch (op) {
    case '==':
      return [l, l === r];
    case '!=':
      return [l, l !== r];
    case '>':
      return [l, l > r];
    case '<':
      return [l, l < r];
    case '>=':
      return [l, l >= r];
    case '<=':
      return [l, l <= r];
    default:
      return [scalarBinop(op, l, r), true];
  }
}

const SAME_LABELSET = 'vector cannot contain metrics with the same labelset';

const SINGLE: readonly number[] = [0];

/**
 * Output columns: candidate outputs in order, merged by label set when `merge` (a range
 * evaluation); writing a column twice at one step is Prometheus's "same labelset" error.
 */
class OutputSlots {
  readonly metas: SeriesMeta[] = [];
  readonly slotOf: Int32Array;
  readonly appearance: AppearanceOrder;
  /** The candidate whose sample created each column (it decides the column's name dropping). */
  readonly creator: Int32Array;
  private readonly written: Int32Array;
  /** A column was written twice at the current step. */
  private collided = false;

  constructor(candidates: readonly SeriesMeta[], merge: boolean) {
    this.slotOf = new Int32Array(candidates.length);
    const byKey = new Map<string, number>();
    for (let c = 0; c < candidates.length; c++) {
      const m = candidates[c] as SeriesMeta;
      let slot: number | undefined;
      if (merge) {
        const k = m.metric.key();
        slot = byKey.get(k);
        if (slot === undefined) byKey.set(k, this.metas.length);
      }
      if (slot === undefined) {
        slot = this.metas.length;
        this.metas.push({ metric: m.metric, dropName: m.dropName });
      }
      this.slotOf[c] = slot;
    }
    this.written = new Int32Array(this.metas.length);
    this.appearance = new AppearanceOrder(this.metas.length);
    this.creator = new Int32Array(this.metas.length).fill(-1);
  }

  /**
   * Writes candidate `c` at batch step `k` (global step `step`). A second write to a column
   * at one step is reported by endStep(): Prometheus checks the step's output after the
   * operation, so the operation's own errors at that step come first.
   */
  write(out: StepBatch, c: number, k: number, step: number, v: number): void {
    const slot = this.slotOf[c] as number;
    if (this.written[slot] === step + 1) this.collided = true;
    this.written[slot] = step + 1;
    this.appearance.note(slot);
    if (this.creator[slot] === -1) this.creator[slot] = c;
    const i = slot * out.steps + k;
    out.values[i] = v;
    out.present[i] = 1;
  }

  /** Throws the "same labelset" error if a column was written twice at this step. */
  endStep(): void {
    if (this.collided) throw new QueryExecutionError(SAME_LABELSET);
  }
}

/** scalar ∘ scalar. */
export class ScalarBinaryOperator implements VectorOperator {
  private readonly metas: SeriesMeta[] = [{ metric: Labels.EMPTY, dropName: false }];

  constructor(
    private readonly op: BinaryOp,
    private readonly lhs: VectorOperator,
    private readonly rhs: VectorOperator,
  ) {}

  async prepare(): Promise<void> {
    await this.lhs.prepare();
    await this.rhs.prepare();
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  order(): readonly number[] {
    return SINGLE;
  }

  next(): StepBatch | null {
    const [l, r] = pullAll([this.lhs, this.rhs]);
    if (l == null || r == null) return null;
    const out = new StepBatch(l.firstStep, l.steps, 1);
    if (l.numSeries === 0 || r.numSeries === 0) return out;
    for (let k = 0; k < l.steps; k++) {
      if (l.present[k] !== 1 || r.present[k] !== 1) continue;
      out.values[k] = scalarBinop(this.op, l.values[k] as number, r.values[k] as number);
      out.present[k] = 1;
    }
    return out;
  }
}

/** vector ∘ scalar, or scalar ∘ vector when `swap`. */
export class VectorScalarOperator implements VectorOperator {
  private metas: SeriesMeta[] = [];
  private appearance = new AppearanceOrder(0);

  constructor(
    private readonly op: BinaryOp,
    private readonly vector: VectorOperator,
    private readonly scalar: VectorOperator,
    private readonly swap: boolean,
    private readonly returnBool: boolean,
    private readonly pc: PlanContext,
  ) {}

  async prepare(): Promise<void> {
    if (this.swap) {
      await this.scalar.prepare();
      await this.vector.prepare();
    } else {
      await this.vector.prepare();
      await this.scalar.prepare();
    }
    const inMetas = this.vector.series();
    const drops = changesMetricSchema(this.op) || this.returnBool;
    this.metas =
      drops && dropsNamesNow(this.pc)
        ? withNamesDropped(inMetas)
        : inMetas.map((m) => ({ metric: m.metric, dropName: false }));
    this.appearance = new AppearanceOrder(this.metas.length);
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  order(): readonly number[] {
    return this.appearance.list;
  }

  next(): StepBatch | null {
    const [first, second] = pullAll(
      this.swap ? [this.scalar, this.vector] : [this.vector, this.scalar],
    );
    const v = this.swap ? second : first;
    const sb = this.swap ? first : second;
    if (v == null || sb == null) return null;
    const { steps } = v;
    const out = new StepBatch(v.firstStep, steps, this.metas.length);
    const op = this.op;
    const comparison = isComparison(op);
    const dropAll = changesMetricSchema(op) || this.returnBool;
    const inMetas = this.vector.series();
    for (let s = 0; s < this.metas.length; s++) {
      (this.metas[s] as SeriesMeta).dropName = dropAll || (inMetas[s] as SeriesMeta).dropName;
    }
    if (sb.numSeries === 0) return out;
    const inOrder = this.vector.order();
    for (let k = 0; k < steps; k++) {
      if (sb.present[k] !== 1) continue;
      const scalar = sb.values[k] as number;
      for (const s of inOrder) {
        const i = s * steps + k;
        if (v.present[i] !== 1) continue;
        const f = v.values[i] as number;
        const lf = this.swap ? scalar : f;
        const rf = this.swap ? f : scalar;
        let [value, keep] = elemBinop(op, lf, rf);
        // A comparison keeps the vector element's value even when the vector is on the right.
        if (comparison && this.swap) value = rf;
        if (this.returnBool) {
          value = keep ? 1 : 0;
          keep = true;
        }
        if (!keep) continue;
        out.values[i] = value;
        out.present[i] = 1;
        this.appearance.note(s);
      }
    }
    return out;
  }
}

/** Join signatures of both sides as ordinals shared by both. */
function signatures(
  matching: VectorMatching,
  lhs: readonly SeriesMeta[],
  rhs: readonly SeriesMeta[],
): { l: Int32Array<ArrayBuffer>; r: Int32Array<ArrayBuffer>; count: number } {
  const sigf = signatureFunction(matching);
  const ordinals = new Map<string, number>();
  const ord = (m: SeriesMeta): number => {
    const sig = sigf(m.metric);
    let o = ordinals.get(sig);
    if (o === undefined) {
      o = ordinals.size;
      ordinals.set(sig, o);
    }
    return o;
  };
  const l = new Int32Array(lhs.length);
  const r = new Int32Array(rhs.length);
  lhs.forEach((m, i) => (l[i] = ord(m)));
  rhs.forEach((m, i) => (r[i] = ord(m)));
  return { l, r, count: ordinals.size };
}

/** Number of series present at batch step `k`. */
function presentCount(b: StepBatch, k: number): number {
  let n = 0;
  for (let s = 0; s < b.numSeries; s++) if (b.present[s * b.steps + k] === 1) n++;
  return n;
}

/** and / or / unless. */
export class SetOperator implements VectorOperator {
  private slots: OutputSlots | null = null;
  private lsig = new Int32Array(0);
  private rsig = new Int32Array(0);
  private sigStamp = new Int32Array(0);

  constructor(
    private readonly op: 'and' | 'or' | 'unless',
    private readonly matching: VectorMatching,
    private readonly lhs: VectorOperator,
    private readonly rhs: VectorOperator,
    private readonly grid: StepGrid,
  ) {}

  async prepare(): Promise<void> {
    await this.lhs.prepare();
    await this.rhs.prepare();
    const lm = this.lhs.series();
    const rm = this.rhs.series();
    const sigs = signatures(this.matching, lm, rm);
    this.lsig = sigs.l;
    this.rsig = sigs.r;
    this.sigStamp = new Int32Array(sigs.count);
    const candidates = this.op === 'or' ? [...lm, ...rm] : [...lm];
    this.slots = new OutputSlots(candidates, this.op === 'or' && this.grid.numSteps > 1);
  }

  series(): readonly SeriesMeta[] {
    return (this.slots as OutputSlots).metas;
  }

  order(): readonly number[] {
    return (this.slots as OutputSlots).appearance.list;
  }

  next(): StepBatch | null {
    const [l, r] = pullAll([this.lhs, this.rhs]);
    if (l == null || r == null) return null;
    try {
      return this.compute(l, r);
    } catch (err) {
      throw firstError([this.lhs, this.rhs], err);
    }
  }

  private compute(l: StepBatch, r: StepBatch): StepBatch {
    const slots = this.slots as OutputSlots;
    const { steps, firstStep } = l;
    const out = new StepBatch(firstStep, steps, slots.metas.length);
    const nl = l.numSeries;
    const lOrder = this.lhs.order();
    const rOrder = this.rhs.order();
    const stamp = this.sigStamp;
    for (let k = 0; k < steps; k++) {
      const step = firstStep + k;
      const mark = step + 1;
      const lCount = presentCount(l, k);
      const rCount = presentCount(r, k);
      const writeL = (s: number): void =>
        slots.write(out, s, k, step, l.values[s * steps + k] as number);
      const writeR = (s: number): void =>
        slots.write(out, nl + s, k, step, r.values[s * steps + k] as number);
      switch (this.op) {
        case 'and':
          if (lCount === 0 || rCount === 0) break;
          for (const s of rOrder)
            if (r.present[s * steps + k] === 1) stamp[this.rsig[s] as number] = mark;
          for (const s of lOrder) {
            if (l.present[s * steps + k] === 1 && stamp[this.lsig[s] as number] === mark) writeL(s);
          }
          break;
        case 'unless':
          if (rCount > 0) {
            for (const s of rOrder)
              if (r.present[s * steps + k] === 1) stamp[this.rsig[s] as number] = mark;
          }
          for (const s of lOrder) {
            if (l.present[s * steps + k] !== 1) continue;
            if (rCount === 0 || stamp[this.lsig[s] as number] !== mark) writeL(s);
          }
          break;
        case 'or':
          for (const s of lOrder) {
            if (l.present[s * steps + k] !== 1) continue;
            stamp[this.lsig[s] as number] = mark;
            writeL(s);
          }
          for (const s of rOrder) {
            if (r.present[s * steps + k] !== 1) continue;
            if (lCount === 0 || stamp[this.rsig[s] as number] !== mark) writeR(s);
          }
          break;
      }
      slots.endStep();
    }
    // Outputs keep their input's name-dropping flag (in a merged column, the first writer's).
    const lm = this.lhs.series();
    const rm = this.rhs.series();
    for (let slot = 0; slot < slots.metas.length; slot++) {
      const c = slots.creator[slot] as number;
      if (c === -1) continue;
      const src = c < nl ? lm[c] : rm[c - nl];
      (slots.metas[slot] as SeriesMeta).dropName = (src as SeriesMeta).dropName;
    }
    return out;
  }
}

/** One candidate output of an arithmetic/comparison join. */
interface Pair {
  readonly many: number;
  readonly one: number;
  /** Identifies the result label set (for group_left/right's uniqueness check). */
  readonly keyId: number;
}

/** Arithmetic and comparisons between two vectors with one-to-one / many-to-one matching. */
export class VectorBinaryOperator implements VectorOperator {
  private slots: OutputSlots | null = null;
  private manySig = new Int32Array(0);
  private oneSig = new Int32Array(0);
  private pairs: Pair[] = [];
  /** Pairs of many-side series m are pairs[pairStart[m] .. pairStart[m + 1]). */
  private pairStart = new Int32Array(0);
  private oneAt = new Int32Array(0);
  private matchedStamp = new Int32Array(0);
  private keyStamp = new Int32Array(0);
  private keySig = new Int32Array(0);
  private readonly swapped: boolean;

  constructor(
    private readonly op: BinaryOp,
    private readonly matching: VectorMatching,
    private readonly returnBool: boolean,
    private readonly lhs: VectorOperator,
    private readonly rhs: VectorOperator,
    private readonly grid: StepGrid,
    private readonly pc: PlanContext,
  ) {
    this.swapped = matching.card === 'one-to-many';
  }

  async prepare(): Promise<void> {
    await this.lhs.prepare();
    await this.rhs.prepare();
    const sigs = signatures(this.matching, this.lhs.series(), this.rhs.series());
    const manyMetas = this.swapped ? this.rhs.series() : this.lhs.series();
    const oneMetas = this.swapped ? this.lhs.series() : this.rhs.series();
    this.manySig = this.swapped ? sigs.r : sigs.l;
    this.oneSig = this.swapped ? sigs.l : sigs.r;
    const oneBySig: number[][] = [];
    for (let o = 0; o < oneMetas.length; o++) {
      const sig = this.oneSig[o] as number;
      (oneBySig[sig] ??= []).push(o);
    }
    const candidates: SeriesMeta[] = [];
    const keyIds = new Map<string, number>();
    this.pairStart = new Int32Array(manyMetas.length + 1);
    for (let m = 0; m < manyMetas.length; m++) {
      this.pairStart[m] = this.pairs.length;
      for (const o of oneBySig[this.manySig[m] as number] ?? []) {
        const metric = this.resultMetric(
          (manyMetas[m] as SeriesMeta).metric,
          (oneMetas[o] as SeriesMeta).metric,
        );
        const key = metric.key();
        let keyId = keyIds.get(key);
        if (keyId === undefined) {
          keyId = keyIds.size;
          keyIds.set(key, keyId);
        }
        this.pairs.push({ many: m, one: o, keyId });
        candidates.push({ metric, dropName: this.returnBool });
      }
    }
    this.pairStart[manyMetas.length] = this.pairs.length;
    // Equal outputs share a column in a range evaluation. An instant query checks for them
    // at once without delayed name removal, and otherwise only when names are finally dropped.
    const merge = this.grid.numSteps > 1 || dropsNamesNow(this.pc);
    this.slots = new OutputSlots(candidates, merge);
    this.oneAt = new Int32Array(sigs.count).fill(-1);
    this.matchedStamp = new Int32Array(sigs.count);
    this.keyStamp = new Int32Array(keyIds.size);
    this.keySig = new Int32Array(keyIds.size);
  }

  private resultMetric(many: Labels, one: Labels): Labels {
    const matching = this.matching;
    let m = many;
    if (changesMetricSchema(this.op)) m = dropMetadataLabels(m);
    if (matching.card === 'one-to-one') {
      m = matching.on
        ? keepLabels(m, matching.matchingLabels)
        : m.without(...matching.matchingLabels);
    }
    for (const ln of matching.include) m = setLabel(m, ln, one.get(ln));
    // Without delayed name removal `bool` drops the name before the uniqueness checks.
    if (this.returnBool && dropsNamesNow(this.pc)) m = dropMetadataLabels(m);
    return m;
  }

  series(): readonly SeriesMeta[] {
    return (this.slots as OutputSlots).metas;
  }

  order(): readonly number[] {
    return (this.slots as OutputSlots).appearance.list;
  }

  next(): StepBatch | null {
    const [lb, rb] = pullAll([this.lhs, this.rhs]);
    if (lb == null || rb == null) return null;
    try {
      return this.compute(lb, rb);
    } catch (err) {
      throw firstError([this.lhs, this.rhs], err);
    }
  }

  private compute(lb: StepBatch, rb: StepBatch): StepBatch {
    if (this.matching.card === 'many-to-many') {
      throw new QueryExecutionError('many-to-many only allowed for set operators');
    }
    const slots = this.slots as OutputSlots;
    const { steps, firstStep } = lb;
    const out = new StepBatch(firstStep, steps, slots.metas.length);
    const many = this.swapped ? rb : lb;
    const one = this.swapped ? lb : rb;
    const oneMetas = this.swapped ? this.lhs.series() : this.rhs.series();
    const manyOrder = this.swapped ? this.rhs.order() : this.lhs.order();
    const oneOrder = this.swapped ? this.lhs.order() : this.rhs.order();
    const oneToOne = this.matching.card === 'one-to-one';
    const oneAt = this.oneAt;
    const touched: number[] = [];
    for (let k = 0; k < steps; k++) {
      const step = firstStep + k;
      const mark = step + 1;
      if (presentCount(lb, k) === 0 || presentCount(rb, k) === 0) continue;
      touched.length = 0;
      try {
        for (const o of oneOrder) {
          if (one.present[o * steps + k] !== 1) continue;
          const sig = this.oneSig[o] as number;
          const dup = oneAt[sig] as number;
          if (dup !== -1) {
            const rs = (oneMetas[o] as SeriesMeta).metric;
            const side = this.swapped ? 'left' : 'right';
            const matched = matchLabels(rs, this.matching.on, this.matching.matchingLabels);
            throw new QueryExecutionError(
              `found duplicate series for the match group ${matched.toString()} on the ${side} hand-side of the operation: [${rs.toString()}, ${(oneMetas[dup] as SeriesMeta).metric.toString()}];many-to-many matching not allowed: matching labels must be unique on one side`,
            );
          }
          oneAt[sig] = o;
          touched.push(sig);
        }
        for (const m of manyOrder) {
          const mi = m * steps + k;
          if (many.present[mi] !== 1) continue;
          const sig = this.manySig[m] as number;
          const o = oneAt[sig] as number;
          if (o === -1) continue;
          let p = this.pairStart[m] as number;
          const end = this.pairStart[m + 1] as number;
          while (p < end && (this.pairs[p] as Pair).one !== o) p++;
          const pair = this.pairs[p] as Pair;
          const mf = many.values[mi] as number;
          const of = one.values[o * steps + k] as number;
          const [computed, keep] = this.swapped
            ? elemBinop(this.op, of, mf)
            : elemBinop(this.op, mf, of);
          const value = this.returnBool ? (keep ? 1 : 0) : computed;
          if (oneToOne) {
            if (this.matchedStamp[sig] === mark) {
              throw new QueryExecutionError(
                'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)',
              );
            }
            this.matchedStamp[sig] = mark;
          } else {
            if (this.keyStamp[pair.keyId] === mark && this.keySig[pair.keyId] === sig) {
              throw new QueryExecutionError(
                'multiple matches for labels: grouping labels must ensure unique matches',
              );
            }
            this.keyStamp[pair.keyId] = mark;
            this.keySig[pair.keyId] = sig;
          }
          if (!keep && !this.returnBool) continue;
          slots.write(out, p, k, step, value);
        }
      } finally {
        for (const sig of touched) oneAt[sig] = -1;
      }
      slots.endStep();
    }
    return out;
  }
}
