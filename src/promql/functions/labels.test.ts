// label_replace / label_join: the functions.test cases, Prometheus's validation errors, and
// Go regexp semantics for submatches and template expansion (expected values produced by
// Go's regexp package: FindStringSubmatch on `^(?s:<re>)$` and ExpandString).
import { describe, expect, it } from 'vitest';
import { Labels, SubmatchRegex } from '../../model/index.js';
import { QueryExecutionError } from '../errors.js';
import type { Vector } from '../value.js';
import {
  compileLabelJoin,
  compileLabelReplace,
  expandTemplate,
  funcLabelJoin,
  funcLabelReplace,
} from './labels.js';
import { makeEnh, sample, str, vectorSelector } from './testing.js';

const testmetric: Vector = [
  sample({ __name__: 'testmetric', src: 'source-value-10', dst: 'original-destination-value' }, 0),
  sample({ __name__: 'testmetric', src: 'source-value-20', dst: 'original-destination-value' }, 1),
];

function replace(dst: string, repl: string, src: string, re: string, input = testmetric): string[] {
  const args = [vectorSelector('testmetric'), str(dst), str(repl), str(src), str(re)];
  return funcLabelReplace([input, [], [], [], []], [], args, makeEnh(0)).map((s) =>
    s.metric.toString(),
  );
}

describe('label_replace', () => {
  it('replaces on a full-string match only (functions.test)', () => {
    expect(replace('dst', 'destination-value-$1', 'src', 'source-value-(.*)')).toEqual([
      '{__name__="testmetric", dst="destination-value-10", src="source-value-10"}',
      '{__name__="testmetric", dst="destination-value-20", src="source-value-20"}',
    ]);
    expect(replace('dst', 'destination-value-$1', 'src', 'value-(.*)')).toEqual(
      testmetric.map((s) => s.metric.toString()),
    );
    expect(replace('dst', '$1-value-$2', 'src', '(.*)-value-(.*)')[0]).toContain(
      'dst="source-value-10"',
    );
    expect(replace('dst', 'value-$1', 'nonexistent-src', 'source-value-(.*)')[0]).toContain(
      'dst="original-destination-value"',
    );
    expect(replace('dst', 'value-$1', 'nonexistent-src', '(.*)')[0]).toContain('dst="value-"');
    expect(replace('dst', '', 'dst', '.*')).toEqual([
      '{__name__="testmetric", src="source-value-10"}',
      '{__name__="testmetric", src="source-value-20"}',
    ]);
  });

  it('keeps the name when it writes __name__, else carries the pending drop', () => {
    const input: Vector = [{ ...sample({ __name__: 'rate_in', env: '1' }, 0.2), dropName: true }];
    const args = (dst: string) => [
      vectorSelector('x'),
      str(dst),
      str('rate_$1'),
      str('__name__'),
      str('(.+)'),
    ];
    const named = funcLabelReplace([input], [], args('__name__'), makeEnh(0))[0]!;
    expect([named.metric.get('__name__'), named.dropName]).toEqual(['rate_rate_in', false]);
    const other = funcLabelReplace([input], [], args('my_name'), makeEnh(0))[0]!;
    expect([other.metric.get('my_name'), other.dropName]).toEqual(['rate_rate_in', true]);
  });

  it('fails on an invalid regex or destination', () => {
    expect(() => compileLabelReplace('dst', 'value-$1', 'src', '(.*')).toThrow(
      new QueryExecutionError('invalid regular expression in label_replace(): (.*'),
    );
    expect(() => compileLabelReplace('\ud800', '', 'src', '(.*)')).toThrow(
      'invalid destination label name in label_replace(): \ud800',
    );
    expect(() => compileLabelReplace('', '', 'src', '(.*)')).toThrow(
      'invalid destination label name',
    );
    // The regex is checked first, and ")(" is valid once wrapped as ^(?s:)()$.
    expect(() => compileLabelReplace('', '', 'src', '(')).toThrow('invalid regular expression');
    expect(() => compileLabelReplace('dst', '', 'src', ')(')).not.toThrow();
  });

  it('compiles the regex once per node', () => {
    const enh = makeEnh(0);
    const args = [vectorSelector('x'), str('dst'), str('$1'), str('src'), str('(.*)')];
    funcLabelReplace([testmetric], [], args, enh);
    const cached = enh.cache.get('label_replace');
    enh.out = [];
    funcLabelReplace([testmetric], [], args, enh);
    expect(enh.cache.get('label_replace')).toBe(cached);
  });
});

describe('label_join', () => {
  const input: Vector = [
    sample(
      { __name__: 'testmetric', src: 'a', src1: 'b', src2: 'c', dst: 'original-destination-value' },
      0,
    ),
    sample(
      { __name__: 'testmetric', src: 'd', src1: 'e', src2: 'f', dst: 'original-destination-value' },
      1,
    ),
  ];
  const join = (dst: string, sep: string, ...srcs: string[]) =>
    funcLabelJoin(
      [input],
      [],
      [vectorSelector('testmetric'), str(dst), str(sep), ...srcs.map((s) => str(s))],
      makeEnh(0),
    ).map((s) => s.metric.get(dst));

  it('joins source values with the separator (functions.test)', () => {
    expect(join('dst', '-', 'src', 'src1', 'src2')).toEqual(['a-b-c', 'd-e-f']);
    expect(join('dst', '', 'src', 'src1', 'src2')).toEqual(['abc', 'def']);
    expect(join('dst', '-', 'src')).toEqual(['a', 'd']);
    expect(join('dst', '-', 'nonexistent')).toEqual(['', '']); // empty value deletes
    expect(join('dst', ',', 'src', 'nonexistent', 'src1')).toEqual(['a,,b', 'd,,e']);
  });

  it('validates sources before the destination', () => {
    expect(() => compileLabelJoin('', '-', ['\udc00'])).toThrow(
      'invalid source label name in label_join(): \udc00',
    );
    expect(() => compileLabelJoin('', '-', ['src'])).toThrow(
      'invalid destination label name in label_join(): ',
    );
    expect(compileLabelJoin('__name__', '_', ['a']).setsName).toBe(true);
    expect(
      compileLabelJoin('x', '_', ['a', 'b'])
        .apply(Labels.fromObject({ a: '1', b: '2' }))
        .get('x'),
    ).toBe('1_2');
  });
});

describe('label_replace templates', () => {
  it('expands templates like regexp.ExpandString', () => {
    const re = new SubmatchRegex('^(?s:(?P<x>\\w+)@(?P<y>\\w+))$');
    const m = re.matchAt0('foo@bar')!;
    const expand = (t: string) => expandTemplate(t, 'foo@bar', m, re.subexpNames);
    const want: [string, string][] = [
      ['$1-$2', 'foo-bar'],
      ['${1}x', 'foox'],
      ['$1x', ''],
      ['$$1', '$1'],
      ['$x.$y', 'foo.bar'],
      ['${x}', 'foo'],
      ['$', '$'],
      ['$ {1}', '$ {1}'],
      ['${1', '${1'],
      ['$01', ''],
      ['$10', ''],
      ['$é', ''],
    ];
    for (const [t, out] of want) expect(expand(t), t).toBe(out);
  });
});
