import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { parseTargets } from './targets.js';

describe('parseTargets', () => {
  it('splits, trims and keeps order', () => {
    expect(parseTargets('all')).toEqual(['all']);
    expect(parseTargets(' ingester , querier,query-frontend ')).toEqual([
      'ingester',
      'querier',
      'query-frontend',
    ]);
  });

  it('resolves notifier to alertmanager and drops duplicates', () => {
    expect(parseTargets('notifier,alertmanager,ruler,notifier')).toEqual(['alertmanager', 'ruler']);
  });

  it('accepts every component of the reference', () => {
    const all =
      'distributor,ingester,querier,query-frontend,store-gateway,compactor,ruler,alertmanager,purger,overrides,configs';
    expect(parseTargets(all)).toEqual(all.split(','));
  });

  it.each([
    [
      'table-manager',
      'unknown target "table-manager": valid targets are all, distributor, ingester',
    ],
    ['Ingester', 'unknown target "Ingester"'],
    ['', 'no target given'],
    [' , ', 'no target given'],
    ['ingester,,querier', 'empty entry in target list "ingester,,querier"'],
  ])('rejects %j', (target, message) => {
    expect(() => parseTargets(target)).toThrow(ConfigError);
    expect(() => parseTargets(target)).toThrow(message);
  });
});
