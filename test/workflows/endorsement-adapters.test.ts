import { expect } from 'chai';
import { createSimulatedAdapter } from '../../adapters/simulated.js';
import { TenantScope } from '../../data/scope.js';
import { createEndorsement as createRow } from '../../usecases/endorsements/endorsements.js';
import type { InsurerAdapter } from '../../adapters/types.js';
import { simulatedInsurerWorkflowId } from '../../workflows/endorsement/contract.js';
import { deletePeriodicSchedules, triggerPass } from '../support/schedules.js';
import { systemClock, today } from '../../domain/clock.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  decide,
  endorsementApi,
  endorsementRow,
  insurerCommand,
  makeWorld,
  memberRows,
  waitFor,
  waitForStatus,
  workflowHandle,
  workflowState,
} from './endorsement-support.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';

/**
 * An insurer adapter double that records each call's start and end in one timeline. Its submit
 * takes `submitMs`, and gives up early on the cancel signal only when told to honour it.
 */
function slowAdapter(o: {
  submitMs: number;
  honourSignal: boolean;
}): InsurerAdapter & { timeline: string[] } {
  const timeline: string[] = [];
  return {
    timeline,
    async submit(_s, options) {
      timeline.push('submit started');
      const signal = o.honourSignal ? options?.signal : undefined;
      await new Promise<void>((resolve, reject) => {
        const done = setTimeout(resolve, o.submitMs);
        signal?.addEventListener('abort', () => {
          clearTimeout(done);
          timeline.push('submit aborted');
          reject(new Error('aborted'));
        });
      });
      timeline.push('submit ended');
    },
    async withdraw() {
      timeline.push('withdraw');
    },
  };
}

describe('insurer adapters and the insurer command', () => {
  checkCdLedgersAfterEachTest();
  describe('simulated adapter', () => {
    it('approves end to end with a generated insurer member id and UHID', async () => {
      const world = await makeWorld({ adapter: 'simulated' });
      const id = await createEndorsement(world);
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      expect(row.uhid).to.match(/^UHID-[0-9A-F]+$/);
      expect(row.insurer_member_id).to.match(/^SIM-[0-9A-F]+$/);
      const [member] = await memberRows(world.policy.id);
      expect(member).to.include({
        uhid: row.uhid,
        insurer_member_id: row.insurer_member_id,
        status: 'active',
      });
    });

    it('rejects when told to: an employee_id starting with REJECT', async () => {
      const world = await makeWorld({
        adapter: 'simulated',
        employee: { employeeCode: `REJECT-${Date.now()}` },
      });
      const id = await createEndorsement(world);
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_REJECTED');
      expect(row.rejection_reason).to.equal('Simulated insurer: rejected on request');
      expect(await memberRows(world.policy.id)).to.have.length(0);
    });

    it('withdraws a pending simulated decision when the endorsement is cancelled', async () => {
      const slow = createSimulatedAdapter({
        temporal: stack().temporal,
        taskQueue: stack().taskQueue,
        delayMs: 600_000,
      });
      const restore = stack().adapters.register('simulated', slow);
      try {
        const world = await makeWorld({ adapter: 'simulated' });
        const id = await createEndorsement(world);
        const insurer = stack().temporal.workflow.getHandle(simulatedInsurerWorkflowId(id));
        await waitFor(
          () =>
            insurer.describe().then(
              (d) => d.status.name,
              () => 'NONE',
            ),
          (s) => s === 'RUNNING',
          'simulated insurer to run',
        );
        const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
        expect(res.status).to.equal(200);
        await waitFor(
          () => insurer.describe().then((d) => d.status.name),
          (s) => s === 'CANCELLED',
          'simulated insurer to be cancelled',
        );
        expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
      } finally {
        restore();
      }
    });
  });

  describe('insurer calls safe to cancel', () => {
    const cancelWhileSubmitting = async (adapter: ReturnType<typeof slowAdapter>) => {
      const restore = stack().adapters.register('manual', adapter);
      try {
        const world = await makeWorld();
        const id = await createEndorsement(world);
        await waitFor(
          () => Promise.resolve([...adapter.timeline]),
          (t) => t.includes('submit started'),
          'the submit to reach the adapter',
        );
        const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
        expect(res.status, res.text).to.equal(200);
        await waitFor(
          () => Promise.resolve([...adapter.timeline]),
          (t) => t.includes('withdraw'),
          'the withdraw',
        );
        expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
        return adapter.timeline;
      } finally {
        restore();
      }
    };

    it('a cancel while the submit call runs withdraws only after that call has ended', async function () {
      this.timeout(30_000);
      // The adapter ignores the cancel signal: the workflow still waits for its submit to end.
      const timeline = await cancelWhileSubmitting(slowAdapter({ submitMs: 2_500, honourSignal: false }));
      expect(timeline).to.deep.equal(['submit started', 'submit ended', 'withdraw']);
    });

    it('the cancel reaches a running submit call through its heartbeat, then the withdraw follows', async function () {
      this.timeout(30_000);
      const timeline = await cancelWhileSubmitting(slowAdapter({ submitMs: 600_000, honourSignal: true }));
      expect(timeline).to.deep.equal(['submit started', 'submit aborted', 'withdraw']);
    });

    it('a submit that cannot reach the insurer within the SLA flags the endorsement stuck; a decision still counts', async function () {
      this.timeout(30_000);
      let attempts = 0;
      const restore = stack().adapters.register('manual', {
        async submit() {
          attempts++;
          throw new Error('insurer unreachable');
        },
        async withdraw() {},
      });
      try {
        const api = await endorsementApi({ config: { ...stack().config, ENDORSEMENT_STUCK_AFTER: '3s' } });
        const world = await makeWorld({ api });
        const id = await createEndorsement(world);
        const state = await waitFor(
          () => workflowState(id),
          (s) => s.stuck,
          'the endorsement to be flagged stuck',
        );
        expect(state).to.include({ status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER', submitted: true });
        expect(attempts).to.be.at.least(2);
        await decide(id, { decision: 'APPROVED', uhid: 'UHID-LATE' });
        expect(await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED')).to.include({ uhid: 'UHID-LATE' });
        expect((await workflowState(id)).stuck).to.equal(false);
      } finally {
        restore();
      }
    });
  });

  describe('npm run insurer', () => {
    it("prints the workflow's answer: accepted, then duplicate, then refused", async function () {
      this.timeout(60_000);
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitFor(
        () => workflowState(id),
        (s) => s.received === true,
        'the insurer to have received it',
      );
      const ok = await insurerCommand(['approve', id, '--uhid', 'UHID-CLI', '--member-id', 'M-CLI']);
      expect(ok.code, ok.stderr).to.equal(0);
      expect(ok.stdout.trim()).to.equal(`accepted: ${id}: APPROVED recorded`);
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      expect(row).to.include({ uhid: 'UHID-CLI', insurer_member_id: 'M-CLI' });

      const same = await insurerCommand(['approve', id, '--json']);
      expect(same.code, same.stderr).to.equal(0);
      expect(JSON.parse(same.stdout)).to.deep.equal({
        endorsement_id: id,
        result: 'duplicate',
        detail: 'already APPROVED',
      });
      await workflowHandle(id).result();

      const again = await insurerCommand(['reject', id, '--reason', 'too late']);
      expect(again.code).to.equal(1);
      expect(again.stderr.trim()).to.equal(`refused: ${id}: already decided with another outcome: APPROVED`);
    });

    it('explains an unknown endorsement and a missing reason', async function () {
      this.timeout(60_000);
      const unknown = await insurerCommand(['approve', 'end_nosuchendorsement']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr.trim()).to.equal('refused: end_nosuchendorsement: not found');
      const usage = await insurerCommand(['reject', 'end_nosuchendorsement']);
      expect(usage.code).to.equal(2);
      expect(usage.stderr).to.contain('--reason');
    });
  });

  describe('reconciler', () => {
    it('a run of its Schedule starts the workflow of an endorsement committed without one', async () => {
      const world = await makeWorld();
      // What a crash between the API's commit and its workflow start leaves behind.
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
      expect((await endorsementRow(created.id)).workflow_started_at).to.equal(null);
      await triggerPass(stack().temporal, stack().taskQueue, 'endorsement-reconciler');
      try {
        const row = await waitForStatus(created.id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
        expect(row.workflow_started_at).to.not.equal(null);
      } finally {
        await deletePeriodicSchedules(stack().temporal);
      }
    });
  });
});
