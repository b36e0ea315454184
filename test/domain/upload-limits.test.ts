import { expect } from 'chai';
import { inTurns, ROWS_PER_TURN } from '../../domain/upload-limits.js';

describe("domain: a long file's rows handled in turns of the event loop (D18)", () => {
  it('gives every item once, in order, ROWS_PER_TURN at a time, and lets other work run between pieces', async () => {
    const items = Array.from({ length: 2 * ROWS_PER_TURN + 1 }, (_, i) => i);
    const seen: string[] = [];
    const pieces: number[][] = [];
    setImmediate(() => seen.push('another request'));
    for await (const piece of inTurns(items)) {
      seen.push(`a piece of ${piece.length}`);
      pieces.push(piece);
    }
    expect(pieces.flat()).to.deep.equal(items);
    expect(seen).to.deep.equal([
      `a piece of ${ROWS_PER_TURN}`,
      'another request',
      `a piece of ${ROWS_PER_TURN}`,
      'a piece of 1',
    ]);
  });

  it('gives no piece for no items', async () => {
    const pieces: unknown[][] = [];
    for await (const piece of inTurns([])) pieces.push(piece);
    expect(pieces).to.deep.equal([]);
  });
});
