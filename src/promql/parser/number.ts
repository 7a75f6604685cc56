// Number literals as Prometheus's parser reads them: strconv.ParseInt(s, 0, 64) first (so
// `0x1f`, `0755`, `0b1`, `1_000` are integers), then strconv.ParseFloat(s, 64) (decimals,
// exponents, hex floats, Inf/NaN), with Go's error text when both fail.
import { strconvParseFloat, strconvParseInt } from '../../model/index.js';

/** The value of a NUMBER token, or the text of Prometheus's "error parsing number" error. */
export function parseNumberLiteral(s: string): { value: number } | { error: string } {
  const i = strconvParseInt(s);
  if ('value' in i) return i;
  const f = strconvParseFloat(s);
  if ('error' in f) return { error: `error parsing number: ${f.error}` };
  return f;
}
