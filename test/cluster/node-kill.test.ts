import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { openCount } from '../resilience/support/endorsement-run.js';
import { clusterFaultRun, runCluster } from './fault-run.js';

/**
 * A fault the dev server (one process) cannot show: one of the two Temporal nodes is SIGKILLed while
 * 300 endorsements run. Its history shards and task queue partitions move to the other node, clients
 * connected through it reconnect through the front door; the node comes back at the end.
 */
describe('Temporal cluster: a node SIGKILLed while 300 endorsements run', () => {
  after(async function () {
    this.timeout(180_000);
    const cluster = runCluster();
    for (const node of cluster.nodes) if (!cluster.isRunning(node)) await cluster.startNode(node);
  });

  it('completes every endorsement once, and visibility agrees with PostgreSQL', async function () {
    this.timeout(900_000);
    await clusterFaultRun({
      name: 'Temporal node SIGKILL',
      endorsements: 300,
      perSecond: 10,
      settleMs: 480_000,
      async fault(cluster, world) {
        await sleep(8_000);
        // The node the most clients are connected through right now: the kill cuts live connections.
        const connections = cluster.balancer.connections();
        const victim = [...cluster.nodes].sort(
          (a, b) => (connections[b.name] ?? 0) - (connections[a.name] ?? 0),
        )[0]!;
        expect(connections[victim.name], 'clients connected through the killed node').to.be.at.least(1);
        const openAtKill = await openCount(world);
        await cluster.killNode(victim);
        expect(victim.process?.signalCode).to.equal('SIGKILL');
        return { killed: victim.name, connectionsAtKill: connections, openAtKill };
      },
    });
  });
});
