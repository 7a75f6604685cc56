/**
 * `-help` output in the layout of Go's flag.PrintDefaults, which Cortex users know: flags
 * sorted by name, each as `  -name type` then a tab-indented description with the default
 * (left out for zero values; strings quoted). Documented aliases get their own line; the
 * neutral spellings (bucketa, mcache, kvone...) are summarised once at the end.
 */
import type { SettingSpec } from './definition.js';
import { META_FLAGS } from './flags.js';
import { CONFIG_TABLE } from './schema.js';
import { choicesSentence, formatValue, helpTypeName, isZeroValue } from './values.js';

interface HelpLine {
  readonly name: string;
  readonly type: string;
  readonly usage: string;
}

export function flagHelp(): string {
  const lines: HelpLine[] = META_FLAGS.map((m) => ({
    name: m.name,
    type: helpTypeName(m.kind),
    usage: m.help,
  }));
  for (const { spec } of CONFIG_TABLE.settings) {
    const [primary, ...aliases] = spec.flags;
    if (primary === undefined) continue;
    const type = helpTypeName(spec.kind);
    const values = spec.choices === undefined ? '' : ` ${choicesSentence(spec.choices, false)}`;
    lines.push({ name: primary, type, usage: spec.help + values + defaultSuffix(spec) });
    for (const alias of aliases) lines.push({ name: alias, type, usage: `Alias of -${primary}.` });
  }
  lines.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const body = lines
    .map((l) => {
      const head = `  -${l.name}${l.type === '' ? '' : ` ${l.type}`}`;
      return `${head}\n    \t${l.usage.replaceAll('\n', '\n    \t')}\n`;
    })
    .join('');
  return (
    'Usage of strata:\n' +
    body +
    "\nThe reference's neutral names are accepted wherever they appear in a flag, YAML key or value:\n" +
    'bucketa, bucketb, bucketc for s3, gcs, azure; mcache for memcached; kvone, kvtwo, gossip for\n' +
    'consul, etcd, memberlist; notifier for alertmanager. See docs/configuration/reference.md.\n'
  );
}

function defaultSuffix(spec: SettingSpec): string {
  if (isZeroValue(spec.default)) return '';
  const shown = formatValue(spec, spec.default);
  return spec.kind === 'string' ? ` (default ${JSON.stringify(shown)})` : ` (default ${shown})`;
}
