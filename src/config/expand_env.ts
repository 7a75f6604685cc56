/**
 * `-config.expand-env`: substitutes environment variables into the YAML text before it is
 * parsed, like Cortex: `${VAR}`, `${VAR:default}` (the default applies when VAR is unset or
 * empty) and `$VAR`. A `$` not followed by a name or `{` is kept as is.
 */
import { ConfigError } from './errors.js';

const NAME = /^[A-Za-z0-9_]+/;

export function expandEnv(text: string, env: Readonly<Record<string, string | undefined>>): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const dollar = text.indexOf('$', i);
    if (dollar < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, dollar);
    const next = text[dollar + 1];
    if (next === '{') {
      const close = text.indexOf('}', dollar + 2);
      if (close < 0) throw new ConfigError(`unterminated "\${" in config file at offset ${dollar}`);
      const inner = text.slice(dollar + 2, close);
      const colon = inner.indexOf(':');
      const name = colon < 0 ? inner : inner.slice(0, colon);
      const fallback = colon < 0 ? undefined : inner.slice(colon + 1);
      if (!/^[A-Za-z0-9_]+$/.test(name))
        throw new ConfigError(`bad variable reference "\${${inner}}" in config file`);
      const value = env[name];
      out +=
        (value === undefined || value === '') && fallback !== undefined ? fallback : (value ?? '');
      i = close + 1;
      continue;
    }
    const m = NAME.exec(text.slice(dollar + 1));
    if (m === null) {
      out += '$';
      i = dollar + 1;
      continue;
    }
    out += env[m[0]] ?? '';
    i = dollar + 1 + m[0].length;
  }
  return out;
}
