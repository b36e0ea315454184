import net from 'node:net';
import { expect } from 'chai';
import { startTcpBalancer, type TcpBalancer } from '../../infra/tcp-balancer.js';

/** A server that answers every connection with its name and keeps the connection open. */
async function named(name: string) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.write(name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as net.AddressInfo).port,
    /** As a SIGKILLed process: the port refuses and open connections end. */
    die() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

async function greeting(address: string): Promise<{ text: string; socket: net.Socket }> {
  const [host, port] = address.split(':');
  const socket = net.connect({ host, port: Number(port) });
  const text = await new Promise<string>((resolve, reject) => {
    socket.once('data', (d: Buffer) => resolve(d.toString()));
    socket.once('close', () => resolve(''));
    socket.once('error', reject);
  });
  return { text, socket };
}

describe('the cluster front door (TCP balancer)', () => {
  let balancer: TcpBalancer;
  const servers: net.Server[] = [];
  afterEach(async () => {
    await balancer?.close();
    for (const s of servers.splice(0)) s.close();
  });

  it('spreads connections over the upstreams in turn and counts them', async () => {
    const a = await named('a');
    const b = await named('b');
    servers.push(a.server, b.server);
    balancer = await startTcpBalancer([
      { name: 'a', host: '127.0.0.1', port: a.port },
      { name: 'b', host: '127.0.0.1', port: b.port },
    ]);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await greeting(balancer.address));
    expect(answers.map((x) => x.text)).to.deep.equal(['a', 'b', 'a', 'b']);
    expect(balancer.connections()).to.deep.equal({ a: 2, b: 2 });
    for (const x of answers) x.socket.destroy();
  });

  it('skips an upstream that refuses, and closes the clients of one that dies', async () => {
    const a = await named('a');
    const b = await named('b');
    servers.push(a.server);
    balancer = await startTcpBalancer([
      { name: 'a', host: '127.0.0.1', port: a.port },
      { name: 'b', host: '127.0.0.1', port: b.port },
    ]);
    const first = await greeting(balancer.address);
    const second = await greeting(balancer.address);
    expect([first.text, second.text]).to.deep.equal(['a', 'b']);
    const closed = new Promise((resolve) => second.socket.once('close', resolve));
    b.die();
    await closed;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await greeting(balancer.address)).text);
    expect(answers).to.deep.equal(['a', 'a', 'a']);
    first.socket.destroy();
  });
});
