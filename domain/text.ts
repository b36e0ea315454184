/**
 * Characters a person's name or a free-text field must not carry: they are invisible or reorder what
 * is shown, and names reach health cards, insurer files and exports. A lone surrogate cannot be
 * stored as UTF-8 at all (PostgreSQL would silently replace it).
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** C0 and C1 controls and DEL; a multi-line field keeps tab, line feed and carriage return. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_LAYOUT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). */
const BIDI_FORMATTING = /[\u202a-\u202e\u2066-\u2069]/;

export function unsafeTextReason(value: string, multiline = false): string | null {
  if (LONE_SURROGATE.test(value)) return 'must not contain unpaired surrogate characters';
  if ((multiline ? CONTROL_EXCEPT_LAYOUT : CONTROL).test(value)) return 'must not contain control characters';
  if (BIDI_FORMATTING.test(value)) return 'must not contain bidirectional formatting characters';
  return null;
}
