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

  /** Reads the next bytes; answers the refusal once a bound is crossed, else null. */
  feed(bytes: Buffer): string | null {
    let keyStart = this.capturing ? 0 : -1;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.capturing) {
            this.topKey!.push(bytes.subarray(keyStart, i));
            this.capturing = false;
            keyStart = -1;
            this.topField = keyText(Buffer.concat(this.topKey!));
            this.topKey = null;
          }
        }
        continue;
      }
      if (b === QUOTE) {
        this.inScalar = false;
        this.inString = true;
        if (this.expectKey) {
          if (this.containers.length === 1) {
            this.capturing = true;
            this.topKey = [];
            keyStart = i + 1;
          }
        } else if (++this.nodes > MAX_JSON_NODES) return tooManyValues();
      } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        this.inScalar = false;
        if (++this.nodes > MAX_JSON_NODES) return tooManyValues();
        if (this.containers.length >= MAX_JSON_DEPTH) return tooDeep(this.topField);
        this.containers.push(b === OPEN_OBJECT);
        this.expectKey = b === OPEN_OBJECT;
        if (this.containers.length === 1) {
          this.topIndex = 0;
          this.topField = 0;
        }
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        this.inScalar = false;
        this.containers.pop();
        this.expectKey = false;
      } else if (b === COMMA) {
        this.inScalar = false;
        const inObject = this.containers[this.containers.length - 1] === true;
        this.expectKey = inObject;
        if (this.containers.length === 1 && !inObject) this.topField = ++this.topIndex;
      } else if (b === COLON) {
        this.inScalar = false;
        this.expectKey = false;
      } else if (isSpace(b)) {
        this.inScalar = false;
      } else if (!this.inScalar) {
        // The first character of a number, true, false or null.
        this.inScalar = true;
        if (++this.nodes > MAX_JSON_NODES) return tooManyValues();
      }
    }
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
