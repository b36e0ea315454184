/**
 * The one set of rules for text people and insurers send us: names, identifiers and free text. Such
 * text reaches health cards, the insurer's files, exports and other people's screens, so characters
 * that are invisible, reorder what is shown, or break a line are refused where the text comes in.
 * A lone surrogate cannot be stored as UTF-8 at all (PostgreSQL would silently replace it).
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** C0 and C1 controls and DEL; a multi-line field keeps tab, line feed and carriage return. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_LAYOUT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Unicode's line and paragraph separators (U+2028, U+2029): a line break no field of ours allows. */
const SEPARATOR = /[\u2028\u2029]/;
/**
 * Bidirectional marks (U+200E, U+200F, U+061C), embeddings and overrides (U+202A–U+202E) and isolates
 * (U+2066–U+2069): each changes the order in which the characters around it are shown.
 */
const BIDI_FORMATTING = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/**
 * Zero-width and invisible characters: zero-width space (U+200B), word joiner and invisible operators
 * (U+2060–U+2064), the byte-order mark / zero-width no-break space (U+FEFF). They make two names that
 * look alike differ. The zero-width joiner and non-joiner (U+200C, U+200D) are kept: Indic scripts
 * write real names with them.
 */
const INVISIBLE = /[\u200b\u2060-\u2064\ufeff]/;
/**
 * What a spreadsheet reads as the start of a formula (OWASP, CSV injection): `=`, `+`, `-`, `@`, and
 * tab or carriage return (already refused as controls). Every file we write neutralises such a cell
 * (infra/spreadsheet-files.ts); names and identifiers are refused at input as well, since no real
 * name or code starts so.
 */
const FORMULA_LEAD = /^[=+\-@]/;

/**
 * - `text`: single-line free text (a designation, a reason);
 * - `multiline`: free text that may keep tab, line feed and carriage return (an address);
 * - `name`: a person's name: as `text`, and must not start as a formula;
 * - `identifier`: a code or id someone else assigns (employee code, UHID, insurer member id): as `name`.
 */
export type TextKind = 'text' | 'multiline' | 'name' | 'identifier';

/** Why the (already trimmed) value breaks the rules of its kind, or null when it keeps them. */
export function unsafeTextReason(value: string, kind: TextKind = 'text'): string | null {
  if (LONE_SURROGATE.test(value)) return 'must not contain unpaired surrogate characters';
  if ((kind === 'multiline' ? CONTROL_EXCEPT_LAYOUT : CONTROL).test(value))
    return 'must not contain control characters';
  if (SEPARATOR.test(value)) return 'must not contain line or paragraph separators';
  if (BIDI_FORMATTING.test(value)) return 'must not contain bidirectional formatting characters';
  if (INVISIBLE.test(value)) return 'must not contain invisible characters';
  if ((kind === 'name' || kind === 'identifier') && FORMULA_LEAD.test(value))
    return 'must not start with =, +, - or @';
  return null;
}
