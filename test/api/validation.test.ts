import { expect } from 'chai';
import { MAX_INPUT_DEPTH, MAX_INPUT_NODES, unsafeInput } from '../../api/validation.js';

describe('request input bounds', () => {
  it('names the whole path of a NUL character deep in the input', () => {
    expect(unsafeInput({ employees: [{ emp_id: 'a' }, { emp_id: 'b\u0000' }] })).to.equal(
      'employees.1.emp_id: must not contain NUL characters',
    );
    expect(unsafeInput({ a: { 'b\u0000': 1 } })).to.equal('a: must not contain NUL characters');
  });

  it('refuses nesting past the depth bound, naming the top-level field', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_INPUT_DEPTH + 1; i++) deep = [deep];
    expect(unsafeInput({ name: deep })).to.equal(`name: must not nest deeper than ${MAX_INPUT_DEPTH} levels`);
  });

  it('refuses more values than the node bound and accepts exactly the bound', () => {
    expect(unsafeInput(Array.from({ length: MAX_INPUT_NODES - 1 }, () => 0))).to.equal(null);
    expect(unsafeInput(Array.from({ length: MAX_INPUT_NODES }, () => 0))).to.match(
      /^body: must hold at most/,
    );
  });
});
