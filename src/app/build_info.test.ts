import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STRATA_VERSION, serveBuildInfo } from './build_info.js';

describe('build info', () => {
  it('reports the version package.json declares', () => {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(STRATA_VERSION).toBe(pkg.version);
    expect(serveBuildInfo('v20.19.0')).toMatchObject({
      version: pkg.version,
      goVersion: 'node v20.19.0',
    });
  });
});
