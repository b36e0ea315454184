import net from 'node:net';

/**
 * Loopback ports for the servers the stack, the tests and the bench start (PostgreSQL, the Temporal
 * dev server and its UI, APIs, SFTP, the cluster's nodes).
 *
 * Every port is chosen below 32768, outside the kernel's ephemeral range (32768–60999 on Linux). A
 * port found with `listen(0)` and closed goes back to that range, and the next `listen(0)` on the
 * machine may be given it before our server binds it. The Temporal CLI picks the dev server's
 * history, matching, worker, HTTP and metrics ports exactly that way, after it has checked ours; a
 * collision leaves one of its services without a listener and the dev server panics at start.
 * Outside the range, only another explicit choice can take the port between the check and the listen.
 */
const LOW_PORTS = { first: 20_000, count: 12_000 };

/** Ports this process has handed out: two calls never return the same one. */
const handedOut = new Set<number>();

/** A free loopback port outside the ephemeral range, never one this process has handed out before. */
export function freePort(): Promise<number> {
  return lowFreePort(handedOut);
}

/**
 * A free loopback port below 32768, for a caller that chooses several before any of them listens (the
 * cluster's nodes): a port in `taken` is never returned, and every port it tries is added to it. Below
 * 32768 also because the cluster's PostgreSQL schema keeps a member's port in a smallint
 * (`cluster_membership.rpc_port`): an ephemeral port makes a node exit at start with "value … is out
 * of range for type smallint".
 */
export async function lowFreePort(taken = new Set<number>()): Promise<number> {
  for (;;) {
    const port = LOW_PORTS.first + Math.floor(Math.random() * LOW_PORTS.count);
    if (taken.has(port)) continue;
    // Claimed before the check, so a concurrent call cannot choose it too; a busy one stays claimed.
    taken.add(port);
    if (await listenable(port)) return port;
  }
}

function listenable(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
