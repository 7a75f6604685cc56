import { describe, expect, it } from 'vitest';
import { META_FLAGS } from './flags.js';
import { flagHelp } from './help.js';
import { CONFIG_TABLE } from './schema.js';

const help = flagHelp();
const flagLines = help.split('\n').filter((l) => l.startsWith('  -'));
const listed = flagLines.map((l) => l.slice(3).split(' ')[0] ?? '');

describe('flagHelp', () => {
  it('lists every flag and every documented alias exactly once', () => {
    const expected = [
      ...META_FLAGS.map((m) => m.name),
      ...CONFIG_TABLE.settings.flatMap((s) => s.spec.flags),
    ];
    expect([...listed].sort()).toEqual([...expected].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('sorts flags by name like Go', () => {
    expect(listed).toEqual([...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('prints Go flag layout: type after the name, tab-indented usage, default unless zero', () => {
    expect(help).toContain(
      '  -experimental.tsdb.stripe-size int\n    \tThe number of shards of series to use in TSDB (must be a power of 2). Reducing this will decrease memory footprint, but can negatively impact performance. (default 16384)\n',
    );
    expect(help).toContain('  -experimental.tsdb.retention-period duration\n');
    expect(help).toContain('(default 6h0m0s)\n');
    expect(help).toContain(
      '  -compactor.block-ranges value\n    \tList of compaction time ranges (comma separated durations). (default 2h0m0s,12h0m0s,24h0m0s)\n',
    );
    expect(help).toContain(
      '  -experimental.tsdb.dir string\n    \tLocal directory to store TSDBs in the ingesters. (default "tsdb")\n',
    );
    expect(help).toContain('  -distributor.ingestion-rate-limit float\n');
  });

  it('prints no type word for booleans and leaves zero defaults out', () => {
    expect(help).toContain('  -auth.enabled\n');
    expect(help).toMatch(/ {2}-auth\.enabled\n {4}\t.*\(default true\)\n/);
    expect(help).toMatch(
      / {2}-ruler\.enable-api\n {4}\tEnable the ruler API \(rule group configuration endpoints\)\.\n/,
    );
    expect(help).toMatch(
      / {2}-experimental\.tsdb\.bucket-store\.max-sample-count int\n {4}\t[^\n]*limit\.\n/,
    );
  });

  it('describes aliases by their primary flag and lists allowed values', () => {
    expect(help).toContain('  -notifier.enable-api\n    \tAlias of -alertmanager.enable-api.\n');
    expect(help).toContain('  -experimental.ruler.enable-api\n    \tAlias of -ruler.enable-api.\n');
    expect(help).toContain(
      'Supported values: s3, gcs, azure, filesystem. Also accepted: bucketa for s3, bucketb for gcs, bucketc for azure. (default "s3")',
    );
  });

  it('documents the meta flags and mentions the neutral spellings once', () => {
    expect(help).toContain('  -config.file string\n    \tConfiguration file to load.\n');
    expect(help).toContain('  -config.expand-env\n');
    expect(help).toContain('bucketa, bucketb, bucketc for s3, gcs, azure; mcache for memcached');
    expect(help).not.toContain('-experimental.tsdb.bucketa.');
  });
});
