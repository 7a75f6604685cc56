/**
 * Annotations of a shard sub-query point into its own text (`… "foo" (1:24)`), which the
 * frontend re-printed with a shard matcher in every selector; the unsharded query would
 * have pointed into the client's text. This maps the ` (line:col)` suffix back, node by
 * node, so warnings and infos of a sharded answer read exactly as the unsharded ones.
 */
import type { Expr } from '../promql/index.js';
import { children, parseExpr, posRangeOf, startPosInput } from '../promql/parser/index.js';

/** Sub-query `line:col` → original `line:col` for every node start of the two trees. */
export function positionMap(
  original: Expr,
  originalText: string,
  subQueryText: string,
): Map<string, string> {
  const out = new Map<string, string>();
  let sub: Expr;
  try {
    sub = parseExpr(subQueryText);
  } catch {
    return out;
  }
  const walk = (a: Expr, b: Expr): void => {
    if (a.type !== b.type) return;
    const from = startPosInput(subQueryText, posRangeOf(b).start);
    if (!out.has(from)) out.set(from, startPosInput(originalText, posRangeOf(a).start));
    const ca = children(a);
    const cb = children(b);
    if (ca.length !== cb.length) return;
    ca.forEach((c, i) => walk(c, cb[i] as Expr));
  };
  walk(original, sub);
  return out;
}

const SUFFIX = / \((\d+:\d+)\)$/;

/** `texts` with each ` (line:col)` suffix mapped through `map` (unknown ones kept). */
export function restorePositions(
  texts: readonly string[],
  map: ReadonlyMap<string, string>,
): string[] {
  return texts.map((t) => {
    const m = SUFFIX.exec(t);
    const to = m === null ? undefined : map.get(m[1] as string);
    return to === undefined
      ? t
      : `${t.slice(0, t.length - (m as RegExpExecArray)[0].length)} (${to})`;
  });
}
