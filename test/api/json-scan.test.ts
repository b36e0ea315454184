import { expect } from 'chai';
import fc from 'fast-check';
import { JsonScan } from '../../api/json-scan.js';
import { unsafeInput } from '../../api/validation.js';
import { MAX_JSON_DEPTH, MAX_JSON_NODES } from '../../domain/upload-limits.js';

/** The scan's answer for the text fed in pieces cut at the given places. */
function scan(text: string, cuts: number[] = []): string | null {
  const bytes = Buffer.from(text);
  const s = new JsonScan();
  let from = 0;
  for (const at of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    const refusal = s.feed(bytes.subarray(from, at));
    if (refusal) return refusal;
    from = at;
  }
  return null;
}

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('api: counting a JSON body’s values and nesting before it is parsed', () => {
  it('refuses exactly where the walk of the parsed body would, whatever the pieces', () => {
    const bodies = [
      JSON.stringify(Array.from({ length: MAX_JSON_NODES - 1 }, () => 0)),
      JSON.stringify(Array.from({ length: MAX_JSON_NODES }, () => 0)),
      JSON.stringify({ rows: Array.from({ length: MAX_JSON_NODES / 2 }, () => ({ 'a"\\b': 'x,y' })) }),
      JSON.stringify({ rows: Array.from({ length: MAX_JSON_NODES / 2 - 1 }, () => ({ k: true })) }),
      `{"name \\"x\\"": ${nested(MAX_JSON_DEPTH)}}`,
      `{"name \\"x\\"": ${nested(MAX_JSON_DEPTH - 1)}}`,
      `[1, "two", ${nested(MAX_JSON_DEPTH)}]`,
      `[1, "two", ${nested(MAX_JSON_DEPTH - 1)}]`,
    ];
    for (const body of bodies) {
      const expected = unsafeInput(JSON.parse(body));
      expect(scan(body), body.slice(0, 40)).to.equal(expected);
      expect(scan(body, [1, 7, 9, 13, 100, 1000]), body.slice(0, 40)).to.equal(expected);
    }
  });

  it('counts any JSON value as the walk does (property)', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'medium' }), fc.array(fc.nat(200)), (text, cuts) => {
        // Nothing a generated value holds crosses a bound; a refusal would be a miscount.
        expect(scan(text, cuts)).to.equal(null);
      }),
    );
  });

  it('names the top-level key of a refusal whatever its quotes, escapes and pieces (property)', () => {
    fc.assert(
      fc.property(
        // NUL is refused by the walk before the nesting (it names NUL, not the key).
        fc.string({ unit: 'binary' }).filter((k) => !k.includes('\u0000')),
        fc.json().filter((j) => !j.includes('\\u0000')),
        fc.array(fc.nat(300)),
        (key, before, cuts) => {
          const body = `{"k\\\\": ${before}, ${JSON.stringify(key)}: ${nested(MAX_JSON_DEPTH)}}`;
          const expected = unsafeInput(JSON.parse(body));
          expect(expected).to.match(/must not nest deeper/);
          expect(scan(body, cuts)).to.equal(expected);
        },
      ),
    );
  });
});
