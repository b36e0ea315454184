import { expect } from 'chai';
import { AwaitingFunds, EndorsementStatus, EndorsementStuck } from '../../workflows/search-attributes.js';
import { cancelEndorsementSignal, insurerDecisionSignal } from '../../workflows/endorsement/contract.js';
import { TenantScope } from '../../data/scope.js';
import { systemClock, today } from '../../domain/clock.js';
import { createEndorsement as createRow } from '../../usecases/endorsements/endorsements.js';
import { makeDependent, makeEmployee, makeMember, makePolicy, sql } from '../support/factories.js';
import { stack } from '../support/stack.js';
import {
  auditActions,
  cdBalance,
  createEndorsement,
  decide,
  endorsementApi,
  endorsementRow,
  historySteps,
  ledger,
  makeWorld,
  memberRows,
  recordManualAdapter,
  waitFor,
  waitForStatus,
  workflowHandle,
  workflowState,
} from './endorsement-support.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { stackActivities } from '../support/activities.js';

const cdEntries = (id: string): Promise<{ kind: string; amount: string; held_change: string }[]> =>
  sql(
    `select kind, amount::text as amount, held_change::text as held_change
       from cd_ledger_entries where endorsement_id = ? order by seq`,
    [id],
  );

describe('endorsement workflow', () => {
  checkCdLedgersAfterEachTest();
  describe('approval', () => {
    it('enrols the employee and the dependents the coverage type covers, and moves the CD balance by premium_impact', async () => {
      const world = await makeWorld({ policy: { coverageType: 'COVERAGE_TYPE_ESC', cdBalance: '50000.00' } });
      const { clientId } = world.client;
      const spouse = await makeDependent(clientId, world.employee.id, { relationship: 'SPOUSE' });
      const child = await makeDependent(clientId, world.employee.id, { relationship: 'CHILD' });
      await makeDependent(clientId, world.employee.id, { relationship: 'PARENT' });

      // ₹3,650 a year (slab 300000) for 182 of 365 days: ₹1,820.
      const id = await createEndorsement(world, {
        coverage_start_date: '2026-10-01',
        coverage_end_date: '2027-03-31',
      });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      expect(await cdBalance(world.policy.id)).to.equal('50000.00');
      expect(await memberRows(world.policy.id)).to.have.length(0);

      await decide(id, { decision: 'APPROVED', insurer_member_id: 'INS-M-1', uhid: 'UHID-1' });
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      expect(row).to.include({ premium_impact: '1820.00', insurer_member_id: 'INS-M-1', uhid: 'UHID-1' });
      expect(row.rejection_reason).to.equal(null);

      const members = await memberRows(world.policy.id);
      expect(members.map((m) => m.dependent_id)).to.have.members([null, spouse.id, child.id]);
      for (const m of members) {
        expect(m).to.include({
          employee_id: world.employee.id,
          endorsement_id: id,
          status: 'active',
          employee_name: world.employee.name,
          coverage_start_date: '2026-10-01',
          coverage_end_date: '2027-03-31',
          sum_insured: '300000.00',
          insurer_member_id: 'INS-M-1',
        });
        expect(m.member_rank).to.equal(m.dependent_id ? 1 : 0);
      }
      expect(members[0]).to.include({ uhid: 'UHID-1', premium_amount: '1820.00' });

      expect(await cdBalance(world.policy.id)).to.equal('48180.00');
      expect(await ledger(world.policy.id)).to.deep.equal([
        { endorsement_id: id, amount: '-1820.00', balance_after: '48180.00' },
      ]);

      // The members list (spec 4.4) shows the employee and the covered dependents.
      const list = await world.api.get(`/v1/policy/${world.policy.id}/members?limit=10`, {
        token: world.token,
      });
      expect(list.status).to.equal(200);
      expect(list.body.payload.members.map((m: any) => m.dependent_id)).to.have.members([
        null,
        spouse.id,
        child.id,
      ]);

      const audit = await sql(
        `select action, changed_fields, actor_token_id from audit_events
          where entity = 'endorsement' and entity_id = ? order by id`,
        [id],
      );
      expect(audit.map((a) => a.action)).to.deep.equal(['create', 'sent_to_insurer', 'approve']);
      expect(audit[0].actor_token_id).to.be.a('string');
      expect(audit[1].changed_fields).to.deep.equal(['status']);

      const state = await workflowHandle(id).result();
      expect(state).to.include({ status: 'ENDORSEMENT_STATUS_APPROVED', decision: 'APPROVED', stuck: false });
      const described = await workflowHandle(id).describe();
      expect(described.typedSearchAttributes.get(EndorsementStatus)).to.equal('ENDORSEMENT_STATUS_APPROVED');
    });

    it('covers parents only (and the employee as proposer) on a COVERAGE_TYPE_P policy', async () => {
      const world = await makeWorld({ policy: { coverageType: 'COVERAGE_TYPE_P' } });
      const { clientId } = world.client;
      await makeDependent(clientId, world.employee.id, { relationship: 'SPOUSE' });
      const parent = await makeDependent(clientId, world.employee.id, { relationship: 'PARENT' });
      const inLaw = await makeDependent(clientId, world.employee.id, { relationship: 'PARENT_IN_LAW' });
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await decide(id, { decision: 'APPROVED' });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      const ids = (await memberRows(world.policy.id)).map((m) => m.dependent_id);
      expect(ids).to.have.members([null, parent.id, inLaw.id]);
    });
  });

  describe('the approval tried locally first', () => {
    it('applies the approval inside the workflow task that sees the decision: no activity of its own', async () => {
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await decide(id, { decision: 'APPROVED', uhid: 'UHID-LOCAL' });
      expect(await workflowHandle(id).result()).to.include({ status: 'ENDORSEMENT_STATUS_APPROVED' });
      expect(await endorsementRow(id)).to.include({
        status: 'ENDORSEMENT_STATUS_APPROVED',
        uhid: 'UHID-LOCAL',
      });
      const steps = await historySteps(id);
      expect(steps.local).to.include('applyApproval');
      expect(steps.activities).to.not.include('applyApproval');
    });

    it('hands a failed attempt to an activity, retried under Pending Activities until the database takes it', async () => {
      const world = await makeWorld({ policy: { cdBalance: '10000.00' } });
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      // The approval's member insert fails until the trigger is dropped.
      await sql(`create or replace function approval_hold() returns trigger language plpgsql as $$
                   begin if new.employee_id = '${world.employee.id}' then raise exception 'held'; end if;
                   return new; end $$;
                 create trigger approval_hold before insert on policy_members for each row
                   execute function approval_hold()`);
      try {
        await decide(id, { decision: 'APPROVED', uhid: 'UHID-HANDED' });
        const pending = await waitFor(
          async () => (await workflowHandle(id).describe()).raw.pendingActivities ?? [],
          (list) => list.some((a) => a.activityType?.name === 'applyApproval' && (a.attempt ?? 0) >= 2),
          'the approval retried as an activity',
        );
        // Its failure is there for the operator (its text encrypted, as every failure's).
        expect(pending.find((a) => a.activityType?.name === 'applyApproval')?.lastFailure).to.exist;
        expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_SENT_TO_INSURER');
      } finally {
        await sql('drop trigger if exists approval_hold on policy_members');
      }
      expect(await workflowHandle(id).result()).to.include({ status: 'ENDORSEMENT_STATUS_APPROVED' });
      const steps = await historySteps(id);
      expect(steps.local.filter((s) => s === 'applyApproval')).to.have.length(1);
      expect(steps.activities.filter((s) => s === 'applyApproval')).to.have.length(1);
      // Applied once: one member row, one debit.
      expect(await memberRows(world.policy.id)).to.have.length(1);
      expect(await ledger(world.policy.id)).to.deep.equal([
        { endorsement_id: id, amount: '-3650.00', balance_after: '6350.00' },
      ]);
    });
  });

  describe('rejection', () => {
    it('records the insurer rejection reason and changes no member, balance or ledger', async () => {
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await decide(id, { decision: 'REJECTED', rejection_reason: 'Pre-existing condition' });
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_REJECTED');
      expect(row.rejection_reason).to.equal('Pre-existing condition');
      expect(await memberRows(world.policy.id)).to.have.length(0);
      expect(await cdBalance(world.policy.id)).to.equal('1000000.00');
      expect(await ledger(world.policy.id)).to.have.length(0);

      const res = await world.api.get(`/v1/policy/endorsements/${id}`, { token: world.token });
      expect(res.body.payload.endorsement).to.include({
        status: 'ENDORSEMENT_STATUS_REJECTED',
        rejection_reason: 'Pre-existing condition',
      });
    });

    it('waits for funds, not rejected, when the CD balance does not cover the premium', async () => {
      const { adapter, restore } = recordManualAdapter();
      try {
        const world = await makeWorld({ policy: { cdBalance: '100.00' } });
        const id = await createEndorsement(world);
        await waitFor(
          () => workflowHandle(id).describe(),
          (d) => d.typedSearchAttributes.get(AwaitingFunds) === true,
          'AwaitingFunds',
        );
        const res = await world.api.get(`/v1/policy/endorsements/${id}`, { token: world.token });
        expect(res.body.payload.endorsement).to.include({ status: 'ENDORSEMENT_STATUS_PENDING' });
        expect(res.body.payload.endorsement.awaiting_funds_reason).to.contain('available CD balance 100.00');
        expect(adapter.submitted).to.not.include(id);
        expect(await cdBalance(world.policy.id)).to.equal('100.00');
      } finally {
        restore();
      }
    });

    it('rejects in review an addition for an inactive employee', async () => {
      const world = await makeWorld({ employee: { status: 'INACTIVE' } });
      const id = await createEndorsement(world);
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_REJECTED');
      expect(row.rejection_reason).to.match(/^Review: /);
      expect(row.rejection_reason).to.contain('not active');
      expect(await memberRows(world.policy.id)).to.have.length(0);
    });
  });

  describe('duplicate and late decisions', () => {
    it('applies the first decision once; later ones change nothing', async () => {
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      const handle = workflowHandle(id);
      // Sent raw, back to back, as a misbehaving integration might.
      await handle.signal(insurerDecisionSignal, { decision: 'APPROVED', uhid: 'FIRST' });
      await handle.signal(insurerDecisionSignal, { decision: 'REJECTED', rejection_reason: 'second' });
      await handle.signal(insurerDecisionSignal, { decision: 'APPROVED', uhid: 'THIRD' });
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      expect(row.uhid).to.equal('FIRST');
      await handle.result();

      // A late decision through the insurer path is answered: refused with the reason, or duplicate.
      expect(await decide(id, { decision: 'REJECTED', rejection_reason: 'late' })).to.deep.equal({
        result: 'refused',
        detail: 'already decided with another outcome: APPROVED',
      });
      expect(await decide(id, { decision: 'APPROVED' })).to.deep.equal({
        result: 'duplicate',
        detail: 'already APPROVED',
      });

      expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_APPROVED');
      expect(await memberRows(world.policy.id)).to.have.length(1);
      expect(await ledger(world.policy.id)).to.have.length(1);
    });

    it('answers a re-run of its local steps after the decision as done, changing nothing', async () => {
      // A workflow task that ran review, hold, routing and the approval locally can have its
      // completion refused when signals arrive meanwhile; the replay then runs those steps again (the
      // three in one call since REVIEW_HOLD_AND_ROUTE, each alone in a run that predates it).
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await workflowHandle(id).signal(insurerDecisionSignal, { decision: 'APPROVED', uhid: 'ONCE' });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      await workflowHandle(id).result();
      const before = { audit: await auditActions(id), entries: await cdEntries(id) };

      const steps = stackActivities();
      const again = await steps.reviewHoldAndRoute(id);
      expect(again.held && again.route).to.include({ adapter: 'manual', queued: false });
      await steps.reviewEndorsement(id, true);
      expect(await steps.holdEndorsementFunds(id)).to.deep.equal({ held: true });
      expect(await steps.routeAfterReview(id)).to.include({ adapter: 'manual', queued: false });

      expect(await endorsementRow(id)).to.include({ status: 'ENDORSEMENT_STATUS_APPROVED', uhid: 'ONCE' });
      expect(before.audit).to.include('approve');
      expect(await auditActions(id)).to.deep.equal(before.audit);
      expect(before.entries.map((e) => e.kind)).to.include.members(['hold', 'debit']);
      expect(await cdEntries(id)).to.deep.equal(before.entries);
    });

    it("still takes D8's insurerDecision signal; the Update then answers from what it decided", async () => {
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await workflowHandle(id).signal(insurerDecisionSignal, { decision: 'APPROVED', uhid: 'UHID-SIGNAL' });
      expect(await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED')).to.include({ uhid: 'UHID-SIGNAL' });
      expect(await decide(id, { decision: 'APPROVED' })).to.deep.equal({
        result: 'duplicate',
        detail: 'already APPROVED',
      });
      expect(await decide(id, { decision: 'REJECTED' })).to.deep.equal({
        result: 'refused',
        detail: 'already decided with another outcome: APPROVED',
      });
    });

    it('refuses a decision for an unknown endorsement as not found', async () => {
      expect(await decide('end_doesnotexist', { decision: 'APPROVED' })).to.deep.equal({
        result: 'refused',
        detail: 'not found',
      });
    });
  });

  describe('cancel', () => {
    it('cancels while SENT_TO_INSURER and tells the adapter to withdraw', async () => {
      const { adapter, restore } = recordManualAdapter();
      try {
        const world = await makeWorld();
        const id = await createEndorsement(world);
        await waitFor(
          async () => adapter.submitted,
          (s) => s.includes(id),
          'submit',
        );
        expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_SENT_TO_INSURER');

        const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
        expect(res.status).to.equal(200);
        expect(res.body.payload.endorsement.status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
        await waitFor(
          async () => adapter.withdrawn,
          (w) => w.includes(id),
          'withdraw',
        );
        const state = await workflowHandle(id).result();
        expect(state).to.include({
          status: 'ENDORSEMENT_STATUS_CANCELLED',
          submitted: true,
          cancelRequested: true,
        });

        // A decision after the cancel changes nothing.
        await decide(id, { decision: 'APPROVED' }).catch(() => undefined);
        expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
        expect(await memberRows(world.policy.id)).to.have.length(0);

        // Cancelling again answers the same.
        const again = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
        expect(again.status).to.equal(200);
        expect(again.body.payload.endorsement.status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
      } finally {
        restore();
      }
    });

    it('cancels while PENDING (workflow not yet past review) without contacting the insurer', async () => {
      const { adapter, restore } = recordManualAdapter();
      try {
        const world = await makeWorld();
        // A row committed whose workflow never started (a crash between commit and start).
        const created = await createRow(
          TenantScope.of(stack().orm.em, world.client.clientId),
          {
            employeeId: world.employee.id,
            policyId: world.policy.id,
            type: 'ENDORSEMENT_TYPE_ADDITION',
            coverageStartDate: '2026-04-01',
            coverageEndDate: '2027-03-31',
          },
          { tokenId: null },
          today(systemClock),
        );
        expect((await endorsementRow(created.id)).status).to.equal('ENDORSEMENT_STATUS_PENDING');

        const res = await world.api.post(`/v1/policy/endorsements/${created.id}/cancel`, {
          token: world.token,
        });
        expect(res.status).to.equal(200);
        expect(res.body.payload.endorsement.status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
        const state = await workflowHandle(created.id).result();
        expect(state).to.include({ status: 'ENDORSEMENT_STATUS_CANCELLED', submitted: false });
        expect(adapter.submitted).to.not.include(created.id);
        expect(adapter.withdrawn).to.not.include(created.id);
        expect((await endorsementRow(created.id)).workflow_started_at).to.not.equal(null);
      } finally {
        restore();
      }
    });

    it("cancels on the operators' cancel signal", async () => {
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await workflowHandle(id).signal(cancelEndorsementSignal);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_CANCELLED');
      expect((await workflowHandle(id).result()).status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
      const described = await workflowHandle(id).describe();
      expect(described.typedSearchAttributes.get(EndorsementStatus)).to.equal('ENDORSEMENT_STATUS_CANCELLED');
    });

    it('refuses a cancel after the decision with 409', async () => {
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await decide(id, { decision: 'APPROVED' });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
      expect(res.status).to.equal(409);
      expect(res.body).to.include({ type: 'CONFLICT', title: 'Endorsement Already Decided' });
      expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_APPROVED');
    });

    it("refuses a cancel that races the insurer's decision", async () => {
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await decide(id, { decision: 'REJECTED', rejection_reason: 'no' });
      const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
      expect(res.status).to.equal(409);
      expect((await waitForStatus(id, 'ENDORSEMENT_STATUS_REJECTED')).rejection_reason).to.equal('no');
    });
  });

  describe('DELETION', () => {
    afterEach(() => stack().workerClock.reset());

    it('ends the cover on coverage_end_date and credits the refund for the unused days', async () => {
      // Approved after the end date: the rows end at once (D10; a future date keeps them active).
      stack().workerClock.set('2027-01-01T06:30:00Z');
      const world = await makeWorld({ policy: { cdBalance: '1000.00' } });
      const { clientId } = world.client;
      const spouse = await makeDependent(clientId, world.employee.id, { relationship: 'SPOUSE' });
      await makeMember(clientId, world.policy.id, world.employee);
      await makeMember(clientId, world.policy.id, world.employee, { dependentId: spouse.id });

      const id = await createEndorsement(world, {
        type: 'DELETION',
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2026-12-31',
      });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await decide(id, { decision: 'APPROVED' });
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      // 90 unused days (2027-01-01..2027-03-31) at ₹3,650 a year over 365 days.
      expect(row.premium_impact).to.equal('-900.00');
      const members = await memberRows(world.policy.id);
      expect(members).to.have.length(2);
      for (const m of members) expect(m).to.include({ status: 'inactive', coverage_end_date: '2026-12-31' });
      expect(await cdBalance(world.policy.id)).to.equal('1900.00');
      expect(await ledger(world.policy.id)).to.deep.equal([
        { endorsement_id: id, amount: '900.00', balance_after: '1900.00' },
      ]);
    });
  });

  describe('MODIFICATION', () => {
    it('changes the sum insured of the covered family and charges the pro-rata difference', async () => {
      const world = await makeWorld();
      const { clientId } = world.client;
      const child = await makeDependent(clientId, world.employee.id, { relationship: 'CHILD' });
      await makeMember(clientId, world.policy.id, world.employee, { sumInsured: '300000.00' });
      await makeMember(clientId, world.policy.id, world.employee, {
        dependentId: child.id,
        sumInsured: '300000.00',
      });

      const id = await createEndorsement(world, {
        type: 'MODIFICATION',
        coverage_start_date: '2026-10-01',
        coverage_end_date: '2027-03-31',
        sum_insured: 500000,
      });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      await decide(id, { decision: 'APPROVED' });
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      // (7,300 - 3,650) a year for 182 of 365 days.
      expect(row).to.include({ premium_impact: '1820.00', sum_insured: '500000.00' });
      const members = await memberRows(world.policy.id);
      for (const m of members) {
        expect(m).to.include({
          status: 'active',
          sum_insured: '500000.00',
          remaining_sum_insured: '500000.00',
        });
      }
      expect(await cdBalance(world.policy.id)).to.equal('998180.00');
      expect(await ledger(world.policy.id)).to.have.length(1);

      const res = await world.api.get(`/v1/policy/endorsements/${id}`, { token: world.token });
      expect(res.body.payload.endorsement).to.include({
        type: 'ENDORSEMENT_TYPE_MODIFICATION',
        sum_insured: 500000,
      });
    });
  });

  describe('SLA', () => {
    it('flags EndorsementStuck after the SLA without a decision and clears it on the decision', async () => {
      const api = await endorsementApi({ config: { ...stack().config, ENDORSEMENT_STUCK_AFTER: '1s' } });
      const world = await makeWorld({ api });
      const id = await createEndorsement(world);
      await waitFor(
        () => workflowState(id),
        (s) => s.stuck,
        'stuck flag',
      );
      expect((await workflowHandle(id).describe()).typedSearchAttributes.get(EndorsementStuck)).to.equal(
        true,
      );
      await decide(id, { decision: 'APPROVED' });
      const final = await workflowHandle(id).result();
      expect(final).to.include({ stuck: false, status: 'ENDORSEMENT_STATUS_APPROVED' });
      expect((await workflowHandle(id).describe()).typedSearchAttributes.get(EndorsementStuck)).to.equal(
        false,
      );
    });
  });

  describe('routing', () => {
    it('routes an addition without policy_id to the earliest active policy covering the start', async () => {
      const world = await makeWorld({ policy: { startDate: '2026-06-01', endDate: '2027-05-31' } });
      const earlier = await makePolicy(world.client.clientId, {
        startDate: '2026-04-01',
        endDate: '2027-03-31',
      });
      const id = await createEndorsement(world, {
        policy_id: undefined,
        coverage_start_date: '2026-07-01',
        coverage_end_date: '2027-03-31',
      });
      const res = await world.api.get(`/v1/policy/endorsements/${id}`, { token: world.token });
      expect(res.body.payload.endorsement.policy_id).to.equal(earlier.id);

      // With policy_id the given policy is used.
      const other = await makeEmployee(world.client.clientId);
      const id2 = await createEndorsement(world, {
        employee_id: other.id,
        policy_id: world.policy.id,
        coverage_start_date: '2026-07-01',
        coverage_end_date: '2027-03-31',
      });
      const res2 = await world.api.get(`/v1/policy/endorsements/${id2}`, { token: world.token });
      expect(res2.body.payload.endorsement.policy_id).to.equal(world.policy.id);
    });

    it('routes a deletion without policy_id to the one policy the employee is on', async () => {
      const world = await makeWorld();
      await makePolicy(world.client.clientId);
      await makeMember(world.client.clientId, world.policy.id, world.employee);
      const id = await createEndorsement(world, { type: 'DELETION', policy_id: undefined });
      const res = await world.api.get(`/v1/policy/endorsements/${id}`, { token: world.token });
      expect(res.body.payload.endorsement).to.include({ policy_id: world.policy.id, premium_impact: 0 });
    });
  });
});
