import { expect } from 'chai';
import {
  endorsementWorkflowId,
  simulatedInsurerWorkflowId,
} from '../../../workflows/endorsement/contract.js';
import { makeClient, sql } from '../../support/factories.js';
import { client, type HttpClient, type HttpResult } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { ownTarget, startApiProcess, startWorker, stopChildren } from '../support/children.js';
import {
  acceptedIds,
  additionBody,
  compareWithTemporal,
  postAdditions,
  runFigures,
  seedRun,
  waitAllFinal,
} from '../support/endorsement-run.js';
import { endReconcilers } from '../support/reconcilers.js';
import { report } from '../support/report.js';

/**
 * Fault 8: two API processes and two worker processes on one PostgreSQL and one Temporal task
 * queue. Pass: the token rate limit is one count across both APIs (D4: 110 concurrent requests
 * give exactly 100 tokens and 10 429s); 10 identical POSTs without a key split over both APIs give
 * exactly one endorsement (the rest 409, test/api/endorsements.test.ts has the one-instance case);
 * 100 endorsements posted to both and processed by both workers are each decided once: one status
 * change of each kind in the audit trail, one simulated-insurer workflow, no duplicate member or
 * ledger row, and the API agreeing with Temporal. Which worker ran each activity is read from the
 * histories (the `identity` of ActivityTaskStarted), to show both did work.
 */
const ENDORSEMENTS = 100;

describe('resilience: two API instances and two workers on one database and one queue', () => {
  let apis: HttpClient[];
  const pick = (i: number) => apis[i % 2]!;

  before(async function () {
    this.timeout(240_000);
    const target = ownTarget(`two-${stack().runId}`);
    const [a, b] = await Promise.all([startApiProcess(target), startApiProcess(target)]);
    apis = [client(a.url), client(b.url)];
    await Promise.all([
      startWorker(target, { SIMULATED_INSURER_DELAY_MS: '300' }),
      startWorker(target, { SIMULATED_INSURER_DELAY_MS: '300' }),
    ]);
  });
  after(async function () {
    this.timeout(60_000);
    await stopChildren();
    await endReconcilers(stack().temporal);
  });

  it('shares the token rate limit: 110 concurrent requests over both give 100 tokens', async function () {
    this.timeout(180_000);
    const acme = await makeClient();
    const body = { client_id: acme.clientId, client_secret: acme.clientSecret, scopes: ['policy.get'] };
    const answers: HttpResult[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < 110) {
          const i = next++;
          answers.push(await pick(i).post('/v1/auth/token', { body }));
        }
      }),
    );
    const statuses: Record<number, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    report('token rate limit over two APIs', statuses);
    expect(statuses).to.deep.equal({ 200: 100, 429: 10 });
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(a.body).to.include({ type: 'A4290' });
      // The real seconds until the first of the 100 tokens, issued moments ago, leaves the hour.
      expect(Number(a.headers.get('retry-after'))).to.be.within(3000, 3600);
    }
  });

  it('accepts exactly one of 10 identical POSTs without a key split over both APIs', async function () {
    this.timeout(60_000);
    const world = await seedRun(1);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        pick(i).post('/v1/policy/endorsements', {
          token: world.token,
          body: additionBody(world, world.employeeIds[0]!),
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    report('10 identical POSTs over two APIs', { statuses });
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => s === 409)).to.have.length(9);
    const [row] = await sql('select count(*)::int as n from endorsements where client_id = ?', [
      world.client.clientId,
    ]);
    expect(row.n).to.equal(1);
  });

  it('decides every endorsement once with two workers', async function () {
    this.timeout(480_000);
    const world = await seedRun(ENDORSEMENTS);
    let i = 0;
    const outcomes = await postAdditions(() => pick(i++), world, world.employeeIds, { concurrency: 8 });
    const ids = acceptedIds(outcomes);
    expect(ids).to.have.length(ENDORSEMENTS);
    const open = await waitAllFinal(world, 300_000);
    const figures = await runFigures(world);
    const disagreements = await compareWithTemporal(apis[0]!, world);
    const changes = await sql(
      `select action, count(*)::int as n, count(distinct entity_id)::int as endorsements from audit_events
        where client_id = ? and entity = 'endorsement' group by action order by action`,
      [world.client.clientId],
    );
    const identities = new Map<string, number>();
    let insurerWorkflows = 0;
    for (const id of ids) {
      const history = await stack().temporal.workflow.getHandle(endorsementWorkflowId(id)).fetchHistory();
      for (const e of history.events ?? []) {
        const identity = e.activityTaskStartedEventAttributes?.identity;
        if (identity) identities.set(identity, (identities.get(identity) ?? 0) + 1);
      }
      const insurer = await stack().temporal.workflow.getHandle(simulatedInsurerWorkflowId(id)).describe();
      if (insurer.status.name === 'COMPLETED') insurerWorkflows++;
    }
    report('two workers', {
      ...figures,
      auditByAction: Object.fromEntries(changes.map((c) => [c.action, c.n])),
      activitiesByWorker: [...identities.values()],
      insurerWorkflows,
      disagreements: disagreements.length,
    });
    expect(open).to.equal(0);
    expect(figures.byStatus).to.deep.equal({ ENDORSEMENT_STATUS_APPROVED: ENDORSEMENTS });
    expect(figures.duplicateMemberRows + figures.duplicateActivePersons + figures.ledgerMismatches).to.equal(
      0,
    );
    expect(figures.ledgerEntries).to.equal(ENDORSEMENTS);
    for (const c of changes) expect(c.n, `audit ${c.action}`).to.equal(c.endorsements);
    expect(insurerWorkflows).to.equal(ENDORSEMENTS);
    expect(identities.size, 'both workers ran activities').to.equal(2);
    expect(disagreements).to.deep.equal([]);
  });
});
