/**
 * Go's float64 text renderings that Prometheus's outputs contain byte for byte: the
 * strconv.FormatFloat 'f', 'e' and 'g' layouts with the shortest round-trip digits (query
 * printing, API sample values, `count_values` labels, annotation texts) and fmt's `%f`
 * (six decimals, in some error texts). One copy here so that the parser, printer, engine,
 * function library and API cannot drift apart.
 */

/** Go's spelling of the non-finite values, or undefined for a finite one. */
function nonFinite(v: number): string | undefined {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return undefined;
}

/**
 * The decimal digits and exponent of the shortest representation of a finite, non-zero
 * |v| that reads back as v: v = d1.d2…dn × 10^exp. JavaScript's toExponential() without an
 * argument picks the same correctly rounded shortest digits as Go's strconv.
 */
function shortestDigits(abs: number): { digits: string; exp: number } {
  const e = abs.toExponential();
  const at = e.indexOf('e');
  return { digits: e.slice(0, at).replace('.', ''), exp: Number(e.slice(at + 1)) };
}

/**
 * Go's strconv.FormatFloat(v, 'f', -1, 64): the shortest digits that round-trip, never an
 * exponent (`1e+21` prints as `1000000000000000000000`, `1e-7` as `0.0000001`), with
 * `+Inf`, `-Inf`, `NaN` and `-0` as Go spells them.
 */
export function formatFloatF(v: number): string {
  const special = nonFinite(v);
  if (special !== undefined) return special;
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const abs = Math.abs(v);
  // In this range JavaScript prints the same shortest digits without an exponent, laid out
  // as 'f' does (the common case, on the API's hot path: one call per sample value).
  if (abs >= 1e-6 && abs < 1e21) return String(v);
  const sign = v < 0 ? '-' : '';
  const { digits, exp } = shortestDigits(abs);
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return sign + digits + '0'.repeat(exp + 1 - digits.length);
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** Go's strconv.FormatFloat(v, 'e', -1, 64): `d.ddde±XX`, at least two exponent digits. */
export function formatFloatE(v: number): string {
  const special = nonFinite(v);
  if (special !== undefined) return special;
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  if (v === 0) return `${sign}0e+00`;
  const { digits, exp } = shortestDigits(Math.abs(v));
  const mant = digits.length > 1 ? `${digits.charAt(0)}.${digits.slice(1)}` : digits;
  const expDigits = String(Math.abs(exp)).padStart(2, '0');
  return `${sign}${mant}e${exp < 0 ? '-' : '+'}${expDigits}`;
}

/**
 * Go's `fmt.Sprintf("%g", v)` (= strconv.FormatFloat(v, 'g', -1, 64)): the shortest digits,
 * in exponent form when the decimal exponent is below -4 or at least 6 (`%v` would switch
 * at 21 instead), otherwise laid out like 'f'.
 */
export function formatFloatG(v: number): string {
  if (v === 0 || !Number.isFinite(v)) return formatFloatF(v);
  const { exp } = shortestDigits(Math.abs(v));
  return exp < -4 || exp >= 6 ? formatFloatE(v) : formatFloatF(v);
}

/** Go's `fmt.Sprintf("%f", v)`: six decimals, no exponent, `+Inf`/`-Inf`/`NaN`. */
export function formatFloatFixed6(v: number): string {
  const special = nonFinite(v);
  if (special !== undefined) return special;
  if (Math.abs(v) < 1e21) return v.toFixed(6);
  // toFixed switches to exponent notation from 1e21; Go keeps printing all integer digits,
  // and such values are integers anyway.
  return `${BigInt(v).toString()}.000000`;
}
