// Go's fmt renderings of float64 that Prometheus's messages contain: `%g` (annotation texts)
// and `%f` (double_exponential_smoothing's errors).

/**
 * `fmt.Sprintf("%g", v)`: shortest round-trip digits, exponent form when the decimal
 * exponent is below -4 or at least 6 (at least two exponent digits), `+Inf`/`-Inf`/`NaN`.
 */
export function formatGoG(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  // toExponential() without digits gives the same shortest round-trip digits as strconv.
  const text = v.toExponential();
  const e = text.indexOf('e');
  const mantissa = text.slice(0, e);
  const exp = Number(text.slice(e + 1));
  const negative = mantissa.startsWith('-');
  const sign = negative ? '-' : '';
  const digits = (negative ? mantissa.slice(1) : mantissa).replace('.', '');
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits.charAt(0)}${frac}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** `fmt.Sprintf("%f", v)`: six decimals, `+Inf`/`-Inf`/`NaN`. */
export function formatGoF(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Math.abs(v) < 1e21) return v.toFixed(6);
  // toFixed switches to exponent notation from 1e21; Go keeps printing all integer digits.
  return `${BigInt(v).toString()}.000000`;
}
