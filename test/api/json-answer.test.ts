import { expect } from 'chai';
import fc from 'fast-check';
import { text } from 'node:stream/consumers';
import { JsonAnswer, jsonPieces, PresentedRows } from '../../api/json-answer.js';
import { ROWS_PER_TURN } from '../../domain/upload-limits.js';

/** The pieces as one text: each a string or UTF-8 bytes (a long array's rows), decoded together. */
const joined = async (value: unknown) => {
  const bytes: Buffer[] = [];
  for await (const piece of jsonPieces(value)) bytes.push(Buffer.from(piece));
  return Buffer.concat(bytes).toString('utf8');
};

/** A census report's shape: many rows of nested objects, then the totals. */
const report = (rows: number) => ({
  payload: {
    dry_run: true,
    rows: Array.from({ length: rows }, (_, i) => ({
      row: i + 1,
      status: i % 7 === 0 ? 'error' : 'ok',
      errors: i % 7 === 0 ? [{ field: 'email', reason: 'is "not" an e-mail ✉' }] : [],
      employee_code: `E-${i}`,
      endorsement: i % 7 === 0 ? null : { type: 'ENDORSEMENT_TYPE_ADDITION', premium_impact: '1820.00' },
      left_out: undefined,
    })),
    totals: { rows, premium: '0.00', cd: null, at: new Date(Date.UTC(2026, 10, 28)) },
    message: 'Census checked; nothing was written',
    success: true,
  },
});

describe('api: a JSON answer written in pieces', () => {
  it("writes JSON.stringify's text byte for byte, long arrays included", async () => {
    for (const rows of [0, 1, ROWS_PER_TURN, ROWS_PER_TURN + 1, 3 * ROWS_PER_TURN + 17]) {
      const value = report(rows);
      expect(await joined(value), `${rows} rows`).to.equal(JSON.stringify(value));
    }
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        expect(await joined(value)).to.equal(JSON.stringify(value));
      }),
      { numRuns: 200 },
    );
    const long = { rows: fc.sample(fc.jsonValue(), 2 * ROWS_PER_TURN + 3), empty: {}, none: [] };
    expect(await joined(long)).to.equal(JSON.stringify(long));
  });

  it('lets other work run between the pieces of a long array or of presented rows (D18)', async () => {
    const items = Array.from({ length: 2 * ROWS_PER_TURN + 1 }, (_, i) => i);
    for (const rows of [items, PresentedRows.of(items, (i) => i * 2)]) {
      const seen: string[] = [];
      const pieces = jsonPieces({ rows });
      setImmediate(() => seen.push('another request'));
      for await (const bytes of pieces) {
        const piece = bytes.toString();
        seen.push(piece.startsWith('[') ? 'first rows' : piece.startsWith(',') ? 'more rows' : piece);
      }
      expect(seen.indexOf('another request')).to.be.greaterThan(seen.indexOf('first rows'));
      expect(seen.indexOf('another request')).to.be.lessThan(seen.indexOf('more rows'));
    }
  });

  it('streams the answer and keeps it as an object for the response observer', async () => {
    const value = report(ROWS_PER_TURN * 2 + 5);
    const answer = new JsonAnswer(value);
    expect(answer.value).to.equal(value);
    expect(await text(answer)).to.equal(JSON.stringify(value));
  });

  it('presents rows as it writes them, a piece at a time, and each row once', async () => {
    for (const rows of [0, 1, ROWS_PER_TURN, ROWS_PER_TURN + 1, 3 * ROWS_PER_TURN + 17]) {
      const items = report(rows).payload.rows;
      let presented = 0;
      const present = (r: (typeof items)[number]) => {
        presented += 1;
        return { row: r.row, code: r.employee_code, endorsement: r.endorsement, left_out: undefined };
      };
      const expected = JSON.stringify({ rows: items.map(present), totals: { rows } });
      presented = 0;
      const answer = { rows: PresentedRows.of(items, present), totals: { rows } };
      expect(await joined(answer), `${rows} rows`).to.equal(expected);
      expect(presented, `${rows} rows presented`).to.equal(rows);
    }
  });

  it('gives the response observer presented rows as a plain array, the rest of the answer as it was', async () => {
    const { payload } = report(ROWS_PER_TURN + 3);
    const totals = payload.totals;
    const answer = new JsonAnswer({
      payload: { ...payload, rows: PresentedRows.of(payload.rows, (r) => r.row) },
    });
    expect(answer.value).to.deep.equal({ payload: { ...payload, rows: payload.rows.map((r) => r.row) } });
    expect((answer.value as { payload: typeof payload }).payload.totals).to.equal(totals);
    const plainAnswer = report(3);
    expect(new JsonAnswer(plainAnswer).value).to.equal(plainAnswer);
    expect(JSON.parse(await text(answer))).to.deep.equal(JSON.parse(JSON.stringify(answer.value)));
  });
});
