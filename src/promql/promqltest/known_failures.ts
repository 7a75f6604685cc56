// The expected-failures list the conformance test accepts while the engine is being built:
// one `file:line` per line, each with a `# why` comment. The list may only shrink: a listed
// case that passes is an error too, so fixed cases must be removed from it.

export interface KnownFailure {
  readonly file: string;
  readonly line: number;
  readonly why: string;
}

/** Parses the list; throws on a malformed entry or an entry without a reason. */
export function parseKnownFailures(text: string): KnownFailure[] {
  const out: KnownFailure[] = [];
  text.split('\n').forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const hash = trimmed.indexOf('#');
    const entry = (hash < 0 ? trimmed : trimmed.slice(0, hash)).trim();
    const why = hash < 0 ? '' : trimmed.slice(hash + 1).trim();
    const m = /^(\S+\.test):(\d+)$/.exec(entry);
    if (m === null)
      throw new Error(
        `known failures line ${i + 1}: expected "<file>.test:<line> # why", got ${JSON.stringify(raw)}`,
      );
    if (why === '')
      throw new Error(`known failures line ${i + 1}: ${entry} needs a "# why" comment`);
    out.push({ file: m[1] as string, line: Number(m[2]), why });
  });
  return out;
}
