/**
 * Resolves label matchers to postings with Prometheus's PostingsForMatchers semantics
 * (tsdb/querier.go): a matcher that accepts the empty string also selects series without the
 * label; `!=`/`!~` matchers whose label must be set are subtracted; when nothing intersects,
 * the base is every series. Works over any postings source (a block index, later the head).
 */
import type { Matcher } from '../../model/index.js';
import { intersectPostings, withoutPostings } from './postings.js';

/** What postingsForMatchers needs from an index: postings by label pair and label values. */
export interface PostingsSource {
  /** Sorted series references having label `name` set to any of `values`. */
  postings(name: string, ...values: string[]): Promise<Uint32Array>;
  /** Every value of label `name`. */
  labelValues(name: string): Promise<string[]>;
}

/** Prometheus's key of the list holding every series. */
export const ALL_POSTINGS_NAME = '';
export const ALL_POSTINGS_VALUE = '';

function isNegative(m: Matcher): boolean {
  return m.type === '!=' || m.type === '!~';
}

/** Series whose label `m.name` has a value `m` accepts (only for matchers rejecting ''). */
async function postingsForMatcher(ix: PostingsSource, m: Matcher): Promise<Uint32Array> {
  if (m.type === '=') return ix.postings(m.name, m.value);
  const set = m.setMatches();
  if (m.type === '=~' && set.length > 0) return ix.postings(m.name, ...set);
  const values = await ix.labelValues(m.name);
  const matching = values.filter((v) => m.matches(v));
  return matching.length === 0 ? new Uint32Array(0) : ix.postings(m.name, ...matching);
}

/** Series whose label `m.name` is set to a value `m` rejects. */
async function inversePostingsForMatcher(ix: PostingsSource, m: Matcher): Promise<Uint32Array> {
  // Double negation fast paths: `!=`/`!~` reject exactly the values their positive form takes.
  if (m.type === '!=') return ix.postings(m.name, m.value);
  if (m.type === '!~') {
    const set = m.inverse().setMatches();
    if (set.length > 0) return ix.postings(m.name, ...set);
  }
  const values = await ix.labelValues(m.name);
  const rejected = m.type === '=' && m.value === '' ? values : values.filter((v) => !m.matches(v));
  return rejected.length === 0 ? new Uint32Array(0) : ix.postings(m.name, ...rejected);
}

/** Sorted references of the series matching every matcher. No matchers selects nothing. */
export async function postingsForMatchers(
  ix: PostingsSource,
  matchers: readonly Matcher[],
): Promise<Uint32Array> {
  // Labels some matcher requires to be set (it rejects the empty value).
  const mustBeSet = new Set<string>();
  for (const m of matchers) if (!m.matchesEmpty()) mustBeSet.add(m.name);
  const isSubtracting = (m: Matcher): boolean =>
    !mustBeSet.has(m.name) || (isNegative(m) && m.matchesEmpty());

  const intersect: Uint32Array[] = [];
  const subtract: Uint32Array[] = [];
  const hasIntersecting = matchers.some((m) => !isSubtracting(m));
  if (matchers.length > 0 && !hasIntersecting) {
    intersect.push(await ix.postings(ALL_POSTINGS_NAME, ALL_POSTINGS_VALUE));
  }

  for (const m of matchers) {
    if (m.name === '' && m.value === '') {
      intersect.push(await ix.postings(ALL_POSTINGS_NAME, ALL_POSTINGS_VALUE));
    } else if (mustBeSet.has(m.name)) {
      const matchesEmpty = m.matchesEmpty();
      if (isNegative(m) && matchesEmpty) {
        // l!="foo" with l required elsewhere: drop the series where l is "foo".
        subtract.push(await postingsForMatcher(ix, m.inverse()));
      } else if (isNegative(m)) {
        // l!="" style: the series where l takes a value the inverse rejects.
        const it = await inversePostingsForMatcher(ix, m.inverse());
        if (it.length === 0) return new Uint32Array(0);
        intersect.push(it);
      } else {
        const it = await postingsForMatcher(ix, m);
        if (it.length === 0) return new Uint32Array(0);
        intersect.push(it);
      }
    } else {
      // The matcher accepts '' so it also selects series without the label: subtract the
      // series whose value it rejects.
      subtract.push(await inversePostingsForMatcher(ix, m));
    }
  }

  let result = intersectPostings(...intersect);
  for (const s of subtract) result = withoutPostings(result, s);
  return result;
}
