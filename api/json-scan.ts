import { MAX_JSON_DEPTH, MAX_JSON_NODES } from '../domain/upload-limits.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

export const tooManyValues = () => `body: must hold at most ${MAX_JSON_NODES} values in one request`;
export const tooDeep = (field: string | number) =>
  `${field}: must not nest deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Counts a JSON body's values and nesting from its bytes as they arrive, before JSON.parse sees
 * them: a body past MAX_JSON_NODES values or MAX_JSON_DEPTH levels is refused after reading no more
 * than it takes to cross the bound, with the words validation's walk (unsafeInput) would use. Values
 * are counted as that walk counts them (objects, arrays, strings, numbers, true, false, null; an
 * object's keys are not values). Only structure is read (every byte that matters is ASCII, so UTF-8
 * needs no decoding); a malformed body is left to JSON.parse. Constant memory besides the top-level
 * key it names in a refusal.
 */
export class JsonScan {
  private nodes = 0;
  /** true for an object, false for an array, outermost first. */
  private readonly containers: boolean[] = [];
  private inString = false;
  private escaped = false;
  private inScalar = false;
  /** Inside an object, between `{` or `,` and the `:`: the next string is a key. */
  private expectKey = false;
  /** The top-level key or index the current value is under, for a refusal's field. */
  private topIndex = 0;
  private topKey: Buffer[] | null = null;
  private capturing = false;
  private topField: string | number = '';

  /**
   * Reads the next bytes; answers the refusal once a bound is crossed, else null. The state lives in
   * locals while a piece is read and is stored back once (a bulk request's body is read here byte by
   * byte: the fields' loads and stores in the loop cost more than the scan itself), and a string's
   * inside is skipped to its next quote or backslash with the native search.
   */
  feed(bytes: Buffer): string | null {
    let { nodes, inString, escaped, inScalar, expectKey } = this;
    const containers = this.containers;
    let keyStart = this.capturing ? 0 : -1;
    let refusal: string | null = null;
    // The next quote and backslash at or after the search's start: -2 not searched, -1 none left.
    let nextQuote = -2;
    let nextSlash = -2;
    const n = bytes.length;
    for (let i = 0; i < n; i++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        if (nextQuote !== -1 && nextQuote < i) nextQuote = bytes.indexOf(QUOTE, i);
        if (nextSlash !== -1 && nextSlash < i) nextSlash = bytes.indexOf(BACKSLASH, i);
        const stop = nextSlash !== -1 && (nextQuote === -1 || nextSlash < nextQuote) ? nextSlash : nextQuote;
        // The string goes on past this piece.
        if (stop === -1) break;
        i = stop;
        if (bytes[i] === BACKSLASH) {
          escaped = true;
          continue;
        }
        inString = false;
        if (this.capturing) {
          this.topKey!.push(bytes.subarray(keyStart, i));
          this.capturing = false;
          keyStart = -1;
          this.topField = keyText(Buffer.concat(this.topKey!));
          this.topKey = null;
        }
        continue;
      }
      const b = bytes[i]!;
      if (b === QUOTE) {
        inScalar = false;
        inString = true;
        if (expectKey) {
          if (containers.length === 1) {
            this.capturing = true;
            this.topKey = [];
            keyStart = i + 1;
          }
        } else if (++nodes > MAX_JSON_NODES) {
          refusal = tooManyValues();
          break;
        }
      } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        inScalar = false;
        if (++nodes > MAX_JSON_NODES) {
          refusal = tooManyValues();
          break;
        }
        if (containers.length >= MAX_JSON_DEPTH) {
          refusal = tooDeep(this.topField);
          break;
        }
        containers.push(b === OPEN_OBJECT);
        expectKey = b === OPEN_OBJECT;
        if (containers.length === 1) {
          this.topIndex = 0;
          this.topField = 0;
        }
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        inScalar = false;
        containers.pop();
        expectKey = false;
      } else if (b === COMMA) {
        inScalar = false;
        const inObject = containers[containers.length - 1] === true;
        expectKey = inObject;
        if (containers.length === 1 && !inObject) this.topField = ++this.topIndex;
      } else if (b === COLON) {
        inScalar = false;
        expectKey = false;
      } else if (isSpace(b)) {
        inScalar = false;
      } else if (!inScalar) {
        // The first character of a number, true, false or null.
        inScalar = true;
        if (++nodes > MAX_JSON_NODES) {
          refusal = tooManyValues();
          break;
        }
      }
    }
    Object.assign(this, { nodes, inString, escaped, inScalar, expectKey });
    if (refusal) return refusal;
    if (this.capturing && keyStart >= 0) this.topKey!.push(Buffer.from(bytes.subarray(keyStart)));
    return null;
  }
}

/** A key's text as JSON.parse would read it (escapes and all); its raw bytes if it is not valid. */
function keyText(raw: Buffer): string {
  const text = raw.toString('utf8');
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}
