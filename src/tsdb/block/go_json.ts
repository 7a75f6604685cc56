// JSON text exactly as Go's encoding/json writes it, for files other tools compare or hash
// (meta.json). JSON.stringify already matches json.MarshalIndent's layout (`": "`, one indent
// per level, `{}`/`[]` when empty); what differs is string escaping: Go escapes <, > and & for
// HTML safety, escapes U+2028/U+2029, and (before Go 1.22, which built the Prometheus 2.x
// releases we compare against) writes \b and \f as \u0008 and \u000c.

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
  '\\b': '\\u0008',
  '\\f': '\\u000c',
};

/** `json.MarshalIndent(value, "", indent)` of a value built from plain objects and arrays. */
export function goMarshalIndent(value: unknown, indent: string): string {
  const text = JSON.stringify(value, null, indent);
  // Escape pairs are matched first, so `\\b` (an escaped backslash, then b) is left alone.
  return text.replace(/\\(?:u[0-9a-fA-F]{4}|.)|[<>&\u2028\u2029]/g, (m) => GO_ESCAPES[m] ?? m);
}
