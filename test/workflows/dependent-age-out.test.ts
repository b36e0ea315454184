import { expect } from 'chai';
import { OPEN_ENDORSEMENT_STATUSES } from '../../domain/enums.js';
import type { AgeOutResult } from '../../workflows/periodic/contract.js';
import { makeDependent, makeMember, sql } from '../support/factories.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { deletePeriodicSchedules, triggerPass } from '../support/schedules.js';
import { stack } from '../support/stack.js';
import { makeWorld, waitFor, type World } from './endorsement-support.js';

/*
 * D16: a covered child over the policy's child age limit on the policy's end date (2027-03-31 here)
 * gets a DELETION ending its cover then, from the daily `dependent-age-out` Schedule on the worker,
 * once the end date is within 30 days. The worker's clock is pinned (the pass reads "today" there).
 */
const SCHEDULE = 'dependent-age-out';
const POLICY_END = '2027-03-31';
const noonIst = (day: string) => `${day}T06:30:00Z`;

/** Triggers the Schedule now and answers the result of the run it started. */
async function agedOutPass(): Promise<AgeOutResult> {
  const { temporal, taskQueue } = stack();
  const before = await temporal.schedule
    .getHandle(SCHEDULE)
    .describe()
    .then(
      (d) => d.info.recentActions.length,
      () => 0,
    );
  const schedule = await triggerPass(temporal, taskQueue, SCHEDULE);
  const runs = await waitFor(
    async () => (await schedule.describe()).info.recentActions,
    (r) => r.length > before,
    'the age-out pass to start',
  );
  const run = runs.at(-1)!.action.workflow;
  return temporal.workflow
    .getHandle(run.workflowId, run.firstExecutionRunId)
    .result() as Promise<AgeOutResult>;
}

/** An employee covered with a spouse and the given children on a policy ending 2027-03-31. */
async function family(childBirths: string[], eligibility?: Record<string, unknown>) {
  const world = await makeWorld();
  const { clientId } = world.client;
  if (eligibility) {
    await sql('update policies set eligibility = ?::jsonb where id = ?', [
      JSON.stringify(eligibility),
      world.policy.id,
    ]);
  }
  await makeMember(clientId, world.policy.id, world.employee);
  const spouse = await makeDependent(clientId, world.employee.id, { dateOfBirth: '1960-01-01' });
  await makeMember(clientId, world.policy.id, world.employee, { dependentId: spouse.id });
  const children: string[] = [];
  for (const dateOfBirth of childBirths) {
    const child = await makeDependent(clientId, world.employee.id, { relationship: 'CHILD', dateOfBirth });
    await makeMember(clientId, world.policy.id, world.employee, { dependentId: child.id });
    children.push(child.id);
  }
  return { world, spouseId: spouse.id, children };
}

const deletionsOf = (world: World) =>
  sql(
    `select dependent_id, policy_id, coverage_end_date::text as coverage_end_date from endorsements
      where employee_id = ? and type = 'ENDORSEMENT_TYPE_DELETION' order by created_at`,
    [world.employee.id],
  );

describe('children ageing out at the renewal (D16)', function () {
  this.timeout(60_000);
  checkCdLedgersAfterEachTest();
  const setToday = (day: string) => stack().workerClock.set(noonIst(day));
  afterEach(async () => {
    stack().workerClock.reset();
    await deletePeriodicSchedules(stack().temporal);
  });

  it('a child over 25 at the end date gets one DELETION effective that day; a younger child and a spouse none', async () => {
    // 26 on 2027-03-31 (25 today), and 24 then.
    const { world, children } = await family(['2001-03-01', '2002-06-01']);
    setToday('2027-03-10');
    const first = await agedOutPass();
    expect(first.removed).to.be.at.least(1);
    expect(await deletionsOf(world)).to.deep.equal([
      { dependent_id: children[0], policy_id: world.policy.id, coverage_end_date: POLICY_END },
    ]);
    const [{ status }] = await sql('select status from endorsements where dependent_id = ?', [children[0]]);
    expect(status).to.be.oneOf([...OPEN_ENDORSEMENT_STATUSES]);

    await agedOutPass();
    expect(await deletionsOf(world)).to.have.length(1);
  });

  it('waits until the end date is within 30 days', async () => {
    const { world } = await family(['2001-03-01']);
    setToday('2027-02-28');
    await agedOutPass();
    expect(await deletionsOf(world)).to.deep.equal([]);
    setToday('2027-03-01');
    await agedOutPass();
    expect((await deletionsOf(world)).map((r) => r.coverage_end_date)).to.deep.equal([POLICY_END]);
  });

  it("honours the policy's own child age limit, higher or lower", async () => {
    const older = await family(['2001-03-01'], { childMaxAge: 26 });
    const younger = await family(['2005-01-01'], { childMaxAge: 21 });
    setToday('2027-03-10');
    await agedOutPass();
    expect(await deletionsOf(older.world)).to.deep.equal([]);
    expect((await deletionsOf(younger.world)).map((r) => r.dependent_id)).to.deep.equal(younger.children);
  });
});
