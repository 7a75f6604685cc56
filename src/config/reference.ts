/**
 * The markdown configuration reference (`docs/configuration/reference.md`), generated from the
 * definition table so it can never disagree with the code: one section per block, one row per
 * setting with its YAML key, every flag spelling, type, default and description.
 */
import type { SettingSpec } from './definition.js';
import { META_FLAGS } from './flags.js';
import { CONFIG_TABLE, type BlockEntry, type SettingEntry } from './schema.js';
import { choicesSentence, formatValue, referenceTypeName } from './values.js';

export function renderConfigReference(): string {
  const out: string[] = [
    '# Configuration reference',
    '',
    '<!-- Generated from the definition table in src/config/ by `npm run docs:config`. Do not edit by hand. -->',
    '',
    'Every setting can be given in the YAML file named by `-config.file` or as a command-line flag.',
    'Flags override the file and the file overrides the defaults. Durations use Go syntax',
    '(`2h0m0s`, `1m30s`, `100ms`, `0`; the Prometheus units `d`, `w`, `y` are accepted too) and are',
    'printed in Go form. Sizes are plain integers in bytes. See [README.md](README.md) for how',
    'loading works and for the choices Strata made where the reference is silent.',
    '',
    "The reference's neutral names are accepted everywhere as aliases and never printed: `bucketa`,",
    '`bucketb`, `bucketc` for `s3`, `gcs`, `azure`; `mcache` for `memcached`; `kvone`, `kvtwo`,',
    '`gossip` for `consul`, `etcd`, `memberlist`; `notifier` for `alertmanager`.',
    '',
    '## Command-line only',
    '',
    '| Flag | Type | Default | Description |',
    '|---|---|---|---|',
    ...META_FLAGS.map(
      (m) =>
        `| \`-${m.name}\` | ${referenceTypeName(m.kind)} | ${m.kind === 'bool' ? '`false`' : '`""`'} | ${cell(m.help)} |`,
    ),
    '| `-help`, `-h` | | | Print every flag with its type, default and description, then exit. |',
  ];
  for (const blockEntry of CONFIG_TABLE.blocks) {
    const settings = CONFIG_TABLE.settings.filter((s) => s.blockPath === blockEntry.yamlPath);
    if (settings.length === 0) continue;
    out.push(
      '',
      ...blockHeading(blockEntry),
      '',
      '| YAML key | Flags | Type | Default | Description |',
      '|---|---|---|---|---|',
    );
    for (const s of settings) out.push(settingRow(s));
  }
  return `${out.join('\n')}\n`;
}

function blockHeading(b: BlockEntry): string[] {
  if (b.yamlPath === '') return ['## Top level', '', cell(b.spec.help)];
  const lines = [`## \`${b.yamlPath}\``, '', b.spec.help];
  const otherSpellings = b.spellings.slice(1);
  if (otherSpellings.length > 0) {
    lines.push('', `Also accepted as ${otherSpellings.map((s) => `\`${s}\``).join(', ')}.`);
  }
  return lines;
}

function settingRow(entry: SettingEntry): string {
  const spec = entry.spec;
  const key = entry.path[entry.path.length - 1] ?? '';
  const flags = [...spec.flags, ...spec.neutralFlags].map((f) => `\`-${f}\``).join('<br>');
  return `| \`${key}\` | ${flags} | ${referenceTypeName(spec.kind)} | ${defaultCell(spec)} | ${cell(description(spec))} |`;
}

function description(spec: SettingSpec): string {
  const parts = [spec.help];
  if (spec.choices !== undefined) parts.push(choicesSentence(spec.choices, true));
  if (spec.yamlAliases.length > 0)
    parts.push(`YAML key aliases: ${spec.yamlAliases.map((a) => `\`${a}\``).join(', ')}.`);
  if (spec.pathAliases.length > 0)
    parts.push(`Also accepted at ${spec.pathAliases.map((a) => `\`${a}\``).join(', ')}.`);
  if (spec.secret) parts.push('Secret: shown as `********` in `/config`.');
  return parts.join(' ');
}

function defaultCell(spec: SettingSpec): string {
  const v = spec.default;
  if (Array.isArray(v) && v.length === 0) return '`[]`';
  if (v === '') return '`""`';
  return `\`${formatValue(spec, v)}\``;
}

/** Markdown table cells cannot hold raw pipes or newlines. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
