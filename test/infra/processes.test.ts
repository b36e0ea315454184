import { expect } from 'chai';
import { BoundedOutput } from '../../infra/processes.js';

describe('BoundedOutput', () => {
  it('keeps everything a short-lived process said', () => {
    const out = new BoundedOutput(10);
    out.add('panic: ');
    out.add(Buffer.from('x'));
    expect(out.toString()).to.equal('panic: x');
  });

  it("keeps a panic's first line and its last frames, and marks what it dropped between", () => {
    const out = new BoundedOutput(12);
    out.add('panic: bind\n');
    for (let i = 0; i < 100; i++) out.add(`frame ${i}\n`);
    expect(out.toString()).to.equal('panic: bind\n\n[…]\n98\nframe 99\n');
  });

  it('fills the head across chunks before it starts the tail', () => {
    const out = new BoundedOutput(4);
    out.add('ab');
    out.add('cdef');
    expect(out.toString()).to.equal('abcdef');
    out.add('ghijk');
    expect(out.toString()).to.equal('abcd\n[…]\nhijk');
  });
});
