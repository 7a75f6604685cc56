// Go's fmt renderings that promtool's output uses: `%g` of a float64 (what `tsdb dump` prints
// for a value) and time.Duration's String (the DURATION column of `create-blocks-from`).
// Tools must print these byte for byte like promtool so outputs can be diffed.

/**
 * Go's `fmt.Sprintf("%g", v)`: the shortest digits that round-trip, in exponent form when
 * the decimal exponent is below -4 or at least 6 (strconv's rule for the shortest precision;
 * `%v` would switch at 21 instead), with a sign and at least two exponent digits.
 */
export function formatGoG(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  // JavaScript's toExponential() without an argument gives the same shortest round-trip
  // digits as Go's strconv (both are correctly rounded shortest representations).
  const text = v.toExponential();
  const e = text.indexOf('e');
  const mantissa = text.slice(0, e);
  const exp = Number(text.slice(e + 1));
  const negative = mantissa.startsWith('-');
  const sign = negative ? '-' : '';
  const digits = (negative ? mantissa.slice(1) : mantissa).replace('.', '');
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const expDigits = String(Math.abs(exp)).padStart(2, '0');
    return `${sign}${digits[0] ?? ''}${frac}e${exp < 0 ? '-' : '+'}${expDigits}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/**
 * Go's time.Duration String for a whole number of milliseconds: `0s`, `1ms`, `999ms`,
 * `1.5s`, `2h0m0s`, `2h46m40.251s`; negative durations get a leading `-`.
 */
export function formatGoDurationMs(ms: number): string {
  if (!Number.isSafeInteger(ms)) throw new RangeError(`duration is not a whole ms count: ${ms}`);
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${abs}ms`;
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const wholeSeconds = Math.floor((abs % 60_000) / 1000);
  const millis = abs % 1000;
  const frac = millis === 0 ? '' : `.${String(millis).padStart(3, '0').replace(/0+$/, '')}`;
  const seconds = `${wholeSeconds}${frac}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}
