import { Readable } from 'node:stream';
import { inTurns, ROWS_PER_TURN } from '../domain/upload-limits.js';

/**
 * Rows presented as they are written: each piece of ROWS_PER_TURN items is presented, serialised and
 * let go, so a report's ten thousand presented rows never live at once and their garbage dies young
 * (a 10,000-row census's dry run: docs/performance.md). `all()` presents every row at once.
 */
export class PresentedRows<U> {
  private constructor(
    /** The presented rows ROWS_PER_TURN at a time, with a turn of the event loop between (inTurns). */
    readonly pieces: () => AsyncGenerator<U[]>,
    readonly all: () => U[],
  ) {}

  static of<T, U>(items: readonly T[], present: (item: T) => U): PresentedRows<U> {
    return new PresentedRows(
      async function* () {
        for await (const piece of inTurns(items)) yield piece.map((item) => present(item));
      },
      () => items.map((item) => present(item)),
    );
  }
}

/** An answer as JsonAnswer takes it: any array of it may be given as PresentedRows instead. */
export type Presentable<T> = T extends (infer U)[]
  ? U[] | PresentedRows<U>
  : T extends object
    ? { [K in keyof T]: Presentable<T[K]> }
    : T;

/**
 * A JSON answer written in pieces (D18): an array longer than ROWS_PER_TURN, or PresentedRows, is
 * serialised that many elements at a time, with a turn of the event loop between pieces, so a census
 * report of 10,000 rows (4.7 MB) is not one JSON.stringify holding every other request on the
 * process. The text is JSON.stringify's own in UTF-8, byte for byte (PresentedRows written as their
 * `all()`).
 * `value` is the answer as a plain object, presented only when read: the response observer
 * (api/middleware/observe.ts) reads it to check it against the contract.
 */
export class JsonAnswer extends Readable {
  private readonly pieces: AsyncIterator<string | Buffer>;

  constructor(private readonly answer: unknown) {
    super();
    this.pieces = jsonPieces(answer)[Symbol.asyncIterator]();
  }

  get value(): unknown {
    return plain(this.answer);
  }

  override _read(): void {
    this.pieces.next().then(
      (next) => void this.push(next.done ? null : next.value),
      (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
    );
  }
}

/** An object JSON.stringify writes key by key (not one with its own toJSON). */
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  Object.getPrototypeOf(v) === Object.prototype &&
  typeof (v as { toJSON?: unknown }).toJSON !== 'function';

/** The answer with every PresentedRows presented (the same object where it holds none). */
function plain(value: unknown): unknown {
  if (value instanceof PresentedRows) return value.all();
  if (Array.isArray(value)) {
    const items = value.map(plain);
    return items.every((v, i) => v === value[i]) ? value : items;
  }
  if (!isPlainObject(value)) return value;
  const entries = Object.entries(value).map(([k, v]) => [k, plain(v)] as const);
  return entries.every(([k, v]) => v === value[k]) ? value : Object.fromEntries(entries);
}

/**
 * JSON.stringify(value) as pieces of text or of its UTF-8 bytes: plain objects key by key, long arrays
 * and PresentedRows ROWS_PER_TURN elements at a time.
 */
export async function* jsonPieces(value: unknown): AsyncGenerator<string | Buffer> {
  if (value instanceof PresentedRows) {
    yield* arrayPieces(value.pieces());
    return;
  }
  if (Array.isArray(value) && value.length > ROWS_PER_TURN) {
    yield* arrayPieces(inTurns(value));
    return;
  }
  if (!isPlainObject(value)) {
    yield JSON.stringify(value);
    return;
  }
  let first = true;
  for (const [key, v] of Object.entries(value)) {
    // As JSON.stringify: a property it would leave out is left out.
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    yield `${first ? '{' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonPieces(v);
  }
  yield first ? '{}' : '}';
}

/**
 * An array written a piece at a time (pieces never empty): `[`, each piece's elements, `]` (`[]` for no
 * piece). A piece is its JSON encoded once, its `[` made the separator and its `]` cut off as bytes
 * (one byte each in UTF-8). Cut off the text and joined to the separator instead, the piece is a string
 * V8 must flatten before encoding: a 10,000-row dry run's answer took 40–58 ms to encode that way
 * against 1–15 ms for the same text flat.
 */
async function* arrayPieces(pieces: AsyncIterable<unknown[]>): AsyncGenerator<string | Buffer> {
  let first = true;
  for await (const piece of pieces) {
    const json = Buffer.from(JSON.stringify(piece));
    if (!first) json[0] = COMMA;
    yield json.subarray(0, -1);
    first = false;
  }
  yield first ? '[]' : ']';
}

const COMMA = ','.charCodeAt(0);
