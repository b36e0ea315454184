import { expect } from 'chai';
import { lowFreePort } from '../../infra/temporal-cluster.js';

describe('cluster node ports', () => {
  it('never hands out a port already given to a node or reserved, and records the one it gives', async () => {
    // Every low port but two is taken: the answer must be one of those two, and then the other.
    const taken = new Set<number>();
    for (let port = 20_000; port < 32_000; port++) taken.add(port);
    taken.delete(24_001);
    taken.delete(31_999);
    const first = await lowFreePort(taken);
    const second = await lowFreePort(taken);
    expect([first, second].sort()).to.deep.equal([24_001, 31_999]);
    expect(taken.has(24_001) && taken.has(31_999)).to.equal(true);
  });
});
