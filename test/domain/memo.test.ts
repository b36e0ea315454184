import { expect } from 'chai';
import { rememberLast } from '../../domain/memo.js';

describe('domain: a reading remembered for the arguments last seen', () => {
  it("answers the function's value, reading each argument once, nothing (null) included", () => {
    const read: string[] = [];
    const parse = rememberLast((text: string) => {
      read.push(text);
      return /^\d+$/.test(text) ? Number(text) : null;
    });
    expect(['12', 'x', '12', 'x', '7'].map(parse)).to.deep.equal([12, null, 12, null, 7]);
    expect(read).to.deep.equal(['12', 'x', '7']);
  });

  it('forgets everything past its bound, so whatever the input its memory stays bounded', () => {
    const read: bigint[] = [];
    const double = rememberLast((n: bigint) => {
      read.push(n);
      return n * 2n;
    }, 2);
    expect([1n, 2n, 1n, 3n, 1n].map(double)).to.deep.equal([2n, 4n, 2n, 6n, 2n]);
    // 3n was the third distinct argument: the first two were forgotten, so 1n is read again.
    expect(read).to.deep.equal([1n, 2n, 3n, 1n]);
  });
});
