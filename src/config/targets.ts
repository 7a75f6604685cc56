/**
 * The `-target` setting: which components one process runs. Valid names are the components of
 * the reference (§2) plus `all`; the reference's `notifier` is accepted for `alertmanager`.
 */
import { choices } from './definition.js';
import { ConfigError } from './errors.js';

/** The components `-target=all` runs: every component except the deprecated configs service. */
export const ALL_COMPONENTS: readonly string[] = [
  'distributor',
  'ingester',
  'querier',
  'query-frontend',
  'store-gateway',
  'compactor',
  'ruler',
  'alertmanager',
  'purger',
];

export const TARGETS = choices(
  ['all', ...ALL_COMPONENTS, 'query-scheduler', 'overrides', 'configs'],
  { notifier: 'alertmanager' },
  true,
);

/** Splits a comma-separated target list, trims, resolves aliases, drops duplicates, validates. */
export function parseTargets(target: string): string[] {
  const parts = target.split(',').map((t) => t.trim());
  if (parts.every((t) => t === ''))
    throw new ConfigError('no target given: -target must name at least one component');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '') throw new ConfigError(`empty entry in target list "${target}"`);
    const name = TARGETS.aliases[part] ?? part;
    if (!TARGETS.values.includes(name)) {
      throw new ConfigError(
        `unknown target "${part}": valid targets are ${TARGETS.values.join(', ')} (alias notifier)`,
      );
    }
    if (!out.includes(name)) out.push(name);
  }
  return out;
}
