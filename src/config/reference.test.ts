import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderConfigReference } from './reference.js';
import { CONFIG_TABLE } from './schema.js';

const FILE = new URL('../../docs/configuration/reference.md', import.meta.url);
const reference = renderConfigReference();

describe('configuration reference', () => {
  it('docs/configuration/reference.md is up to date', () => {
    // UPDATE_CONFIG_REFERENCE=1 regenerates the file without a build (same output as `npm run docs:config`).
    if (process.env.UPDATE_CONFIG_REFERENCE === '1') writeFileSync(FILE, reference);
    let onDisk = '';
    try {
      onDisk = readFileSync(FILE, 'utf8');
    } catch {
      // A missing file is reported as stale below.
    }
    if (onDisk !== reference) {
      expect.fail(
        'docs/configuration/reference.md is stale: run `npm run docs:config` ' +
          '(or `UPDATE_CONFIG_REFERENCE=1 npx vitest run src/config/reference.test.ts`) and commit the result',
      );
    }
  });

  it('documents every setting with all its flag spellings and YAML key', () => {
    for (const { spec, path } of CONFIG_TABLE.settings) {
      for (const flag of [...spec.flags, ...spec.neutralFlags])
        expect(reference, flag).toContain(`\`-${flag}\``);
      expect(reference).toContain(`| \`${path[path.length - 1] ?? ''}\` |`);
    }
  });

  it('has one section per block that holds settings, titled by its YAML path', () => {
    expect(reference).toContain('\n## `tsdb.bucket_store.index_cache.memcached`\n');
    expect(reference).toContain('Also accepted as `tsdb.bucket_store.index_cache.mcache`.');
    expect(reference).toContain('\n## `store_gateway.sharding_ring.kvstore.consul`\n');
    expect(reference).toContain('\n## Top level\n');
    expect(reference).toContain(
      '| `ignore_deletion_mark_delay` | `-experimental.tsdb.bucket-store.ignore-deletion-marks-delay`<br>`-blocks-storage.bucket-store.ignore-deletion-marks-delay` | duration | `6h0m0s` |',
    );
  });

  it('is deterministic', () => {
    expect(renderConfigReference()).toBe(reference);
  });
});
