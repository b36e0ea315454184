import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { openCount } from '../resilience/support/endorsement-run.js';
import { clusterFaultRun } from './fault-run.js';

/**
 * A deploy of the Temporal server itself: each node in turn stopped gracefully (SIGTERM) and started
 * again, the next one only once the restarted node answers, while endorsements run.
 */
describe('Temporal cluster: a rolling restart of both nodes while endorsements run', () => {
  it('completes every endorsement once, and visibility agrees with PostgreSQL', async function () {
    this.timeout(900_000);
    await clusterFaultRun({
      name: 'Temporal rolling restart',
      endorsements: 120,
      perSecond: 3,
      settleMs: 480_000,
      async fault(cluster, world) {
        const steps: Record<string, unknown>[] = [];
        for (const node of cluster.nodes) {
          await sleep(5_000);
          const openAtStop = await openCount(world);
          const stoppedAt = Date.now();
          await cluster.stopNode(node);
          expect(cluster.isRunning(node)).to.equal(false);
          await cluster.startNode(node);
          steps.push({
            node: node.name,
            openAtStop,
            downSeconds: Math.round((Date.now() - stoppedAt) / 1000),
          });
        }
        expect(cluster.nodes.every((n) => cluster.isRunning(n))).to.equal(true);
        return { restarts: steps };
      },
    });
  });
});
