import { expect } from 'chai';
import { lowFreePort } from '../../infra/temporal-cluster.js';

describe('cluster node ports', () => {
  it('never hands out a port already given to a node or reserved, and records the one it gives', async () => {
    // Two ports free now; every other low port taken: the answers must be those two, one each.
    const a = await lowFreePort();
    const b = await lowFreePort(new Set([a]));
    const taken = new Set<number>();
    for (let port = 20_000; port < 32_000; port++) if (port !== a && port !== b) taken.add(port);
    const first = await lowFreePort(taken);
    const second = await lowFreePort(taken);
    const byNumber = (x: number, y: number) => x - y;
    expect([first, second].sort(byNumber)).to.deep.equal([a, b].sort(byNumber));
    expect(taken.has(a) && taken.has(b)).to.equal(true);
  });
});
