import { Readable } from 'node:stream';
import { inTurns, ROWS_PER_TURN } from '../domain/upload-limits.js';

/**
 * A JSON answer written in pieces (D18): an array longer than ROWS_PER_TURN is serialised that many
 * elements at a time, with a turn of the event loop between pieces, so a census report of 10,000
 * rows (4.7 MB) is not one JSON.stringify holding every other request on the process. The text is
 * JSON.stringify's own, byte for byte. `value` is the answer as an object, for the response
 * observer (api/middleware/observe.ts), which checks it against the contract.
 */
export class JsonAnswer extends Readable {
  private readonly pieces: AsyncIterator<string>;

  constructor(readonly value: unknown) {
    super();
    this.pieces = jsonPieces(value)[Symbol.asyncIterator]();
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

/** JSON.stringify(value) as pieces: plain objects key by key, long arrays ROWS_PER_TURN elements at a time. */
export async function* jsonPieces(value: unknown): AsyncGenerator<string> {
  if (Array.isArray(value) && value.length > ROWS_PER_TURN) {
    let first = true;
    for await (const piece of inTurns(value)) {
      yield `${first ? '[' : ','}${JSON.stringify(piece).slice(1, -1)}`;
      first = false;
    }
    yield ']';
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
