import { expect } from 'chai';
import { stackActivities } from '../support/activities.js';
import { TenantScope } from '../../data/scope.js';
import { startEndorsementWorkflow } from '../../usecases/endorsements/endorsements.js';
import { createGrant, startGrantWorkflow } from '../../usecases/grants/grants.js';
import { GrantStatus } from '../../workflows/search-attributes.js';
import { makeMember, sql } from '../support/factories.js';
import { deletePeriodicSchedules, triggerPass } from '../support/schedules.js';
import { stack } from '../support/stack.js';
import { decide, endorsementRow, memberRows, waitForStatus, workflowHandle } from './endorsement-support.js';
import {
  countRows,
  getGrant,
  grant,
  grantAudit,
  grantHandle,
  grantWorld,
  waitForEndorsements,
  waitForGrant,
  type GrantWorld,
} from './grant-support.js';

const endorsementOn = (g: any, policyId: string) => g.endorsements.find((e: any) => e.policy_id === policyId);

const finalStatus = (w: GrantWorld, id: string, status: string) =>
  waitForGrant(w, id, (g) => g.status === status, status);

async function grantEndorsementRows(grantId: string): Promise<Record<string, any>[]> {
  return sql(
    `select id, policy_id, type, coverage_start_date::text as coverage_start_date,
            coverage_end_date::text as coverage_end_date, workflow_started_at
       from endorsements where grant_id = ? order by policy_id`,
    [grantId],
  );
}

/** The grant activities on this stack, called directly to set up a race the workflow must survive. */
const grantActivities = stackActivities;

describe('grant workflow', () => {
  it('without policy_id: enrols into every active overlapping policy, clipped, skipping one already covering', async () => {
    const w = await grantWorld({
      current: { startDate: '2026-04-01', endDate: '2027-03-31' },
      covering: { startDate: '2026-01-01', endDate: '2026-12-31' },
      inactive: { status: 'POLICY_STATUS_INACTIVE' },
    });
    const { current, covering, inactive } = w.policies as Record<string, { id: string }>;
    await makeMember(w.clientId, covering!.id, w.employee, { start: '2026-01-01', end: '2026-12-31' });

    const id = await grant(w, { start_date: '2026-06-01', end_date: '2027-06-30' });
    const g = await waitForEndorsements(w, id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 1);
    expect(g.status).to.equal('GRANT_STATUS_IN_PROGRESS');
    const [row] = await grantEndorsementRows(id);
    expect(row).to.include({
      policy_id: current!.id,
      type: 'ENDORSEMENT_TYPE_ADDITION',
      coverage_start_date: '2026-06-01',
      coverage_end_date: '2027-03-31',
    });
    // Marked by the child's first activity, so the endorsement reconciler leaves it alone.
    expect(row!.workflow_started_at).to.not.equal(null);
    expect(g.endorsements).to.have.deep.members([
      {
        endorsement_id: row!.id,
        policy_id: current!.id,
        status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
        detail: null,
      },
      {
        endorsement_id: null,
        policy_id: covering!.id,
        status: 'SKIPPED',
        detail: 'the employee is already active on this policy',
      },
    ]);
    expect(endorsementOn(g, inactive!.id)).to.equal(undefined);
    const child = await workflowHandle(row!.id).describe();
    expect(child.parentExecution?.workflowId).to.equal(`grant-${id}`);

    await decide(row!.id, { decision: 'APPROVED', uhid: 'UHID-G1' });
    const done = await finalStatus(w, id, 'GRANT_STATUS_COMPLETED');
    expect(endorsementOn(done, current!.id).status).to.equal('ENDORSEMENT_STATUS_APPROVED');
    expect((await memberRows(current!.id)).map((m) => m.coverage_start_date)).to.deep.equal(['2026-06-01']);
    expect(await grantAudit(id)).to.deep.equal(['create', 'in_progress', 'completed']);

    const state = await grantHandle(id).result();
    expect(state).to.include({ status: 'GRANT_STATUS_COMPLETED', discarded: false });
    const described = await grantHandle(id).describe();
    expect(described.typedSearchAttributes.get(GrantStatus)).to.equal('GRANT_STATUS_COMPLETED');
  });

  it('with policy_id: that policy only; a policy already covering the employee completes as skipped', async () => {
    const w = await grantWorld({ chosen: {}, other: {}, covering: {} });
    const { chosen, other, covering } = w.policies as Record<string, { id: string }>;
    await makeMember(w.clientId, covering!.id, w.employee);

    const id = await grant(w, { policy_id: chosen!.id });
    const g = await waitForEndorsements(w, id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 1);
    expect(g.endorsements.map((e: any) => e.policy_id)).to.deep.equal([chosen!.id]);
    const [row] = await grantEndorsementRows(id);
    await decide(row!.id, { decision: 'APPROVED' });
    await finalStatus(w, id, 'GRANT_STATUS_COMPLETED');
    expect(await memberRows(other!.id)).to.have.length(0);

    const skipped = await grant(w, { policy_id: covering!.id });
    const s = await finalStatus(w, skipped, 'GRANT_STATUS_COMPLETED');
    expect(s.endorsements).to.deep.equal([
      {
        endorsement_id: null,
        policy_id: covering!.id,
        status: 'SKIPPED',
        detail: 'the employee is already active on this policy',
      },
    ]);
    expect(await grantEndorsementRows(skipped)).to.have.length(0);
    // Nothing was created, so the grant never went IN_PROGRESS.
    expect(await grantAudit(skipped)).to.deep.equal(['create', 'completed']);
  });

  it('is COMPLETED when every endorsement is approved', async () => {
    const w = await grantWorld({ a: {}, b: {} });
    const id = await grant(w);
    await waitForEndorsements(w, id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 2);
    for (const row of await grantEndorsementRows(id)) await decide(row.id, { decision: 'APPROVED' });
    const g = await finalStatus(w, id, 'GRANT_STATUS_COMPLETED');
    expect(g.endorsements.map((e: any) => e.status)).to.deep.equal([
      'ENDORSEMENT_STATUS_APPROVED',
      'ENDORSEMENT_STATUS_APPROVED',
    ]);
    for (const p of Object.values(w.policies)) expect(await memberRows(p.id)).to.have.length(1);
  });

  it('is PARTIALLY_COMPLETED when the insurer rejects one child and approves the other', async () => {
    const w = await grantWorld({ a: {}, b: {} });
    const { a, b } = w.policies as Record<string, { id: string }>;
    const id = await grant(w);
    await waitForEndorsements(w, id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 2);
    const rows = await grantEndorsementRows(id);
    const onA = rows.find((r) => r.policy_id === a!.id)!;
    const onB = rows.find((r) => r.policy_id === b!.id)!;
    await decide(onB.id, { decision: 'REJECTED', rejection_reason: 'Pre-existing condition' });
    await waitForStatus(onB.id, 'ENDORSEMENT_STATUS_REJECTED');
    // One child decided, one still with the insurer: the grant waits for all.
    expect((await getGrant(w, id)).status).to.equal('GRANT_STATUS_IN_PROGRESS');
    await decide(onA.id, { decision: 'APPROVED' });
    const g = await finalStatus(w, id, 'GRANT_STATUS_PARTIALLY_COMPLETED');
    expect(endorsementOn(g, b!.id)).to.deep.equal({
      endorsement_id: onB.id,
      policy_id: b!.id,
      status: 'ENDORSEMENT_STATUS_REJECTED',
      detail: 'Pre-existing condition',
    });
    expect(endorsementOn(g, a!.id).status).to.equal('ENDORSEMENT_STATUS_APPROVED');
    expect(await grantAudit(id)).to.deep.equal(['create', 'in_progress', 'partially_completed']);
  });

  it('is FAILED when its only endorsement is cancelled by the client', async () => {
    const w = await grantWorld();
    const id = await grant(w);
    await waitForEndorsements(w, id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 1);
    const [row] = await grantEndorsementRows(id);
    const cancel = await w.api.post(`/v1/policy/endorsements/${row!.id}/cancel`, { token: w.token });
    expect(cancel.status).to.equal(200);
    const g = await finalStatus(w, id, 'GRANT_STATUS_FAILED');
    expect(g.endorsements[0].status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
    expect(await grantAudit(id)).to.deep.equal(['create', 'in_progress', 'failed']);
  });

  it('records an open endorsement as SKIPPED and a validation failure as FAILED', async () => {
    const w = await grantWorld({
      ok: {},
      open: {},
      // A default sum insured that is not one of the slabs: D7 refuses the addition.
      broken: { defaultSumInsured: '999999.00' },
    });
    const { ok, open, broken } = w.policies as Record<string, { id: string }>;
    const before = await w.api.post('/v1/policy/endorsements', {
      token: w.token,
      body: {
        employee_id: w.employee.id,
        policy_id: open!.id,
        type: 'ADDITION',
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2027-03-31',
      },
    });
    expect(before.status).to.equal(200);
    const openId = before.body.payload.endorsement_id as string;

    const id = await grant(w);
    const g = await waitForEndorsements(w, id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 1);
    const skipped = endorsementOn(g, open!.id);
    expect(skipped).to.include({ endorsement_id: null, status: 'SKIPPED' });
    expect(skipped.detail).to.contain(openId);
    const failed = endorsementOn(g, broken!.id);
    expect(failed).to.include({ endorsement_id: null, status: 'FAILED' });
    expect(failed.detail).to.match(/^sum_insured: /);

    await decide(endorsementOn(g, ok!.id).endorsement_id, { decision: 'APPROVED' });
    await finalStatus(w, id, 'GRANT_STATUS_PARTIALLY_COMPLETED');
    // The open endorsement is not the grant's: it is untouched.
    expect((await endorsementRow(openId)).status).to.equal('ENDORSEMENT_STATUS_SENT_TO_INSURER');
  });

  it('follows an endorsement whose workflow was started before its child start, and creates each item once', async function () {
    this.timeout(40_000);
    const w = await grantWorld();
    const policyId = w.policies.a!.id;
    // A grant committed without its workflow, its item created, then the endorsement's workflow
    // started on its own (as a cancel through the API or the endorsement reconciler would): the grant's child start is refused.
    const created = await createGrant(
      TenantScope.of(stack().orm.em, w.clientId),
      { employeeId: w.employee.id, startDate: '2026-04-01', endDate: '2027-03-31' },
      { tokenId: null },
    );
    const activities = grantActivities();
    const item = await activities.createGrantEndorsement(created.id, policyId);
    expect(item.outcome).to.equal('ENDORSEMENT');
    expect(await activities.createGrantEndorsement(created.id, policyId)).to.deep.equal(item);
    expect(await countRows('endorsements', w.employee.id)).to.equal(1);

    const deps = { temporal: stack().temporal, config: stack().config };
    await startEndorsementWorkflow(deps, TenantScope.of(stack().orm.em, w.clientId), {
      id: item.endorsementId!,
      clientId: w.clientId,
      policyId,
      employeeId: w.employee.id,
      type: 'ENDORSEMENT_TYPE_ADDITION',
    });
    await startGrantWorkflow(deps, TenantScope.of(stack().orm.em, w.clientId), created);
    await waitForGrant(w, created.id, (g) => g.status === 'GRANT_STATUS_IN_PROGRESS', 'IN_PROGRESS');
    await waitForStatus(item.endorsementId!, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect((await workflowHandle(item.endorsementId!).describe()).parentExecution).to.equal(undefined);

    await decide(item.endorsementId!, { decision: 'APPROVED' });
    await finalStatus(w, created.id, 'GRANT_STATUS_COMPLETED');
    expect(await countRows('endorsements', w.employee.id)).to.equal(1);
  });

  it('never takes its endorsements down with it: a terminated grant leaves the child with the insurer', async () => {
    const w = await grantWorld();
    const id = await grant(w);
    await waitForEndorsements(w, id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 1);
    const [row] = await grantEndorsementRows(id);
    await grantHandle(id).terminate('operator stopped the grant');
    expect((await workflowHandle(row!.id).describe()).status.name).to.equal('RUNNING');
    await decide(row!.id, { decision: 'APPROVED' });
    await waitForStatus(row!.id, 'ENDORSEMENT_STATUS_APPROVED');
    expect(await memberRows(w.policies.a!.id)).to.have.length(1);
  });

  describe('reconciler', () => {
    it('starts a grant committed without its workflow: PENDING, then IN_PROGRESS, then COMPLETED', async () => {
      const w = await grantWorld();
      const created = await createGrant(
        TenantScope.of(stack().orm.em, w.clientId),
        { employeeId: w.employee.id, startDate: '2026-04-01', endDate: '2027-03-31' },
        { tokenId: null },
      );
      expect(await getGrant(w, created.id)).to.include({ status: 'GRANT_STATUS_PENDING' });
      expect((await getGrant(w, created.id)).endorsements).to.deep.equal([]);

      // A run of the grant reconciler's Schedule, on this run's queue (another worker of this run
      // may have pointed the namespace's Schedules at its own).
      await triggerPass(stack().temporal, stack().taskQueue, 'grant-reconciler');
      try {
        const g = await waitForEndorsements(w, created.id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 1);
        expect(g.status).to.equal('GRANT_STATUS_IN_PROGRESS');
        const [row] = await sql('select workflow_started_at from grants where id = ?', [created.id]);
        expect(row.workflow_started_at).to.not.equal(null);
        await decide(g.endorsements[0].endorsement_id, { decision: 'APPROVED' });
        await finalStatus(w, created.id, 'GRANT_STATUS_COMPLETED');
        expect(await countRows('grants', w.employee.id)).to.equal(1);
      } finally {
        await deletePeriodicSchedules(stack().temporal);
      }
    });
  });
});
