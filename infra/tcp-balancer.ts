import net from 'node:net';

/**
 * The cluster's front door: a TCP load balancer on loopback in front of every node's frontend, as a
 * production cluster has one. Each client connection goes to the next frontend in turn; a frontend
 * that refuses (its node is down) is skipped, so clients that reconnect after a node dies reach a
 * live one. Bytes are passed through untouched (gRPC over HTTP/2, TLS or not).
 */
export interface Upstream {
  name: string;
  host: string;
  port: number;
}

export interface TcpBalancer {
  address: string;
  /** Open client connections per upstream name, right now. */
  connections(): Record<string, number>;
  close(): Promise<void>;
}

export async function startTcpBalancer(
  upstreams: Upstream[],
  port = 0,
  host = '127.0.0.1',
): Promise<TcpBalancer> {
  let next = 0;
  const open = new Map<string, Set<net.Socket>>(upstreams.map((u) => [u.name, new Set()]));

  const clients = new Set<net.Socket>();

  const connect = (client: net.Socket, tried: number): void => {
    if (tried >= upstreams.length || client.destroyed) {
      client.destroy();
      return;
    }
    const upstream = upstreams[next++ % upstreams.length]!;
    const server = net.connect({ host: upstream.host, port: upstream.port });
    let connected = false;
    // Refused before connecting: that frontend is down, the next one gets the client.
    server.on('error', () => (connected ? client.destroy() : connect(client, tried + 1)));
    server.once('connect', () => {
      connected = true;
      const sockets = open.get(upstream.name)!;
      sockets.add(server);
      server.once('close', () => {
        sockets.delete(server);
        client.destroy();
      });
      client.once('close', () => server.destroy());
      client.pipe(server);
      server.pipe(client);
      client.resume();
    });
  };

  const listener = net.createServer({ pauseOnConnect: true }, (client) => {
    clients.add(client);
    client.once('close', () => clients.delete(client));
    client.on('error', () => client.destroy());
    connect(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(port, host, () => resolve());
  });
  const bound = (listener.address() as net.AddressInfo).port;
  return {
    address: `${host}:${bound}`,
    connections: () => Object.fromEntries([...open].map(([name, sockets]) => [name, sockets.size])),
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        for (const client of clients) client.destroy();
        for (const sockets of open.values()) for (const s of sockets) s.destroy();
      }),
  };
}
