import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import pg from 'pg';
import { openCount } from '../resilience/support/endorsement-run.js';
import { stack } from '../support/stack.js';
import { clusterFaultRun } from './fault-run.js';

/**
 * The cluster's PostgreSQL (its own server, persistence and visibility) stopped and started again
 * while endorsements run: for the time it is down no node can write a history event, a task or a
 * visibility row, so starts and signals fail and every service retries; nothing written before may be
 * lost and nothing may run twice.
 */
describe('Temporal cluster: its PostgreSQL restarted while endorsements run', () => {
  it('completes every endorsement once, and visibility agrees with PostgreSQL', async function () {
    this.timeout(900_000);
    const postgres = stack().clusterPostgres;
    if (!postgres) throw new Error('this test needs the stack on a Temporal cluster: npm run test:cluster');
    await clusterFaultRun({
      name: 'Temporal PostgreSQL restart',
      endorsements: 150,
      perSecond: 5,
      settleMs: 480_000,
      async fault(_cluster, world) {
        await sleep(8_000);
        const openAtStop = await openCount(world);
        const stoppedAt = Date.now();
        await postgres.stop();
        expect(await answers(postgres.url), 'the cluster database is down').to.equal(false);
        await sleep(12_000);
        await postgres.start();
        expect(await answers(postgres.url), 'the cluster database is back').to.equal(true);
        return { openAtStop, downSeconds: Math.round((Date.now() - stoppedAt) / 1000) };
      },
    });
  });
});

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
