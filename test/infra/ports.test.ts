import { readFileSync } from 'node:fs';
import net from 'node:net';
import { expect } from 'chai';
import { freePort, lowFreePort } from '../../infra/ports.js';

describe('loopback ports for the servers we start', () => {
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

  it("chooses outside the kernel's ephemeral range, where another program's listen(0) cannot be given it", async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    // This machine's ephemeral range, where listen(0) takes its ports (Linux; 32768 by default).
    const [firstEphemeral] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    for (const port of ports) {
      expect(port).to.be.within(20_000, 31_999);
      expect(port).to.be.below(Number(firstEphemeral));
    }
    expect(new Set(ports).size, 'no port handed out twice').to.equal(ports.length);
  });

  it('hands out a port that a server can listen on at once', async () => {
    const port = await freePort();
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
