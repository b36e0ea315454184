import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createSimulatedAdapter } from '../../adapters/simulated.js';
import { TenantScope } from '../../data/scope.js';
import { systemClock, today } from '../../domain/clock.js';
import { createEndorsement as createRow, ensureEndorsementReconciler } from '../../usecases/endorsements.js';
import {
  ENDORSEMENT_RECONCILER_ID,
  simulatedInsurerWorkflowId,
} from '../../workflows/endorsement/contract.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  endorsementRow,
  makeWorld,
  memberRows,
  waitFor,
  waitForStatus,
  workflowHandle,
} from './endorsement-support.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Runs the insurer command as an operator would, against this run's Temporal. */
async function insurerCommand(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: stack().temporalAddress,
    TEMPORAL_NAMESPACE: stack().config.TEMPORAL_NAMESPACE,
    LOG_LEVEL: 'silent',
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(
      'node',
      ['--import', 'tsx', 'scripts/insurer.ts', ...args],
      {
        cwd: ROOT,
        env,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('insurer adapters and the insurer command', () => {
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

  describe('npm run insurer', () => {
    it('approves with the given UHID and member id, and refuses a second decision', async function () {
      this.timeout(60_000);
      const world = await makeWorld();
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      const ok = await insurerCommand(['approve', id, '--uhid', 'UHID-CLI', '--member-id', 'M-CLI']);
      expect(ok.code, ok.stderr).to.equal(0);
      expect(ok.stdout).to.contain(`approval sent for ${id}`);
      const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      expect(row).to.include({ uhid: 'UHID-CLI', insurer_member_id: 'M-CLI' });
      await workflowHandle(id).result();

      const again = await insurerCommand(['reject', id, '--reason', 'too late']);
      expect(again.code).to.equal(1);
      expect(again.stderr).to.contain('already decided: ENDORSEMENT_STATUS_APPROVED');
    });

    it('explains an unknown endorsement and a missing reason', async function () {
      this.timeout(60_000);
      const unknown = await insurerCommand(['approve', 'end_nosuchendorsement']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.contain('unknown endorsement end_nosuchendorsement');
      const usage = await insurerCommand(['reject', 'end_nosuchendorsement']);
      expect(usage.code).to.equal(2);
      expect(usage.stderr).to.contain('--reason');
    });
  });

  describe('reconciler', () => {
    it('starts the workflow of an endorsement committed without one', async () => {
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
      await ensureEndorsementReconciler(stack().temporal, stack().taskQueue, { intervalMs: 100, graceMs: 0 });
      try {
        const row = await waitForStatus(created.id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
        expect(row.workflow_started_at).to.not.equal(null);
      } finally {
        await stack().temporal.workflow.getHandle(ENDORSEMENT_RECONCILER_ID).terminate('test over');
      }
    });
  });
});
