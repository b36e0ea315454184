import { expect } from 'chai';
import fc from 'fast-check';
import {
  cancelEndorsementSignal,
  insurerDecisionSignal,
  type EndorsementState,
} from '../../../workflows/endorsement/contract.js';
import { makeEmployee, sql } from '../../support/factories.js';
import {
  createEndorsement,
  makeWorld,
  recordManualAdapter,
  waitForStatus,
  workflowHandle,
  type World,
} from '../../workflows/endorsement-support.js';
import { report } from './report.js';

/**
 * Fault 6: the insurer's decision signals delivered three times each, interleaved with cancels
 * (the operators' signal and the API's cancel), in a random order, back to back or all at once,
 * before or after the submission. Pass: the endorsement's state changed exactly once (one audit
 * row of a final action), the row, the workflow's result and the API agree, and the member rows,
 * the ledger and the insurer withdrawal match the outcome. Sequential deliveries end in the
 * outcome of the first one delivered.
 */
type Event = 'approve' | 'reject' | 'cancelSignal' | 'cancelApi';
const OUTCOME: Record<Event, string> = {
  approve: 'ENDORSEMENT_STATUS_APPROVED',
  reject: 'ENDORSEMENT_STATUS_REJECTED',
  cancelSignal: 'ENDORSEMENT_STATUS_CANCELLED',
  cancelApi: 'ENDORSEMENT_STATUS_CANCELLED',
};

const plan = fc
  .subarray<Event>(['approve', 'reject', 'cancelSignal', 'cancelApi'], { minLength: 1 })
  .chain((kinds) => {
    const all = kinds.flatMap((k) => [k, k, k]);
    return fc.record({
      events: fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }),
      concurrent: fc.boolean(),
      early: fc.boolean(),
    });
  });

export async function signalStorm(numRuns: number): Promise<void> {
  const { adapter, restore } = recordManualAdapter();
  const outcomes: Record<string, number> = {};
  const cancelAnswers: Record<number, number> = {};
  try {
    const world = await makeWorld();
    await fc.assert(
      fc.asyncProperty(plan, async ({ events, concurrent, early }) => {
        const employee = await makeEmployee(world.client.clientId);
        const id = await createEndorsement(world, { employee_id: employee.id });
        if (!early) await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
        const deliver = (e: Event) => send(world, id, e, cancelAnswers);
        if (concurrent) await Promise.all(events.map(deliver));
        else for (const e of events) await deliver(e);

        const state = (await workflowHandle(id).result()) as EndorsementState;
        outcomes[state.status] = (outcomes[state.status] ?? 0) + 1;
        if (!concurrent && !early) expect(state.status, events.join(',')).to.equal(OUTCOME[events[0]!]);
        await expectConsistent(world, id, employee.id, state, adapter.withdrawn);
      }),
      { numRuns },
    );
  } finally {
    restore();
  }
  report('insurer signals x3 with cancels', { runs: numRuns, outcomes, cancelAnswers });
}

async function send(world: World, id: string, e: Event, answers: Record<number, number>): Promise<void> {
  const handle = workflowHandle(id);
  // A signal to a closed workflow is refused by the server; an insurer retrying late sees the same.
  const ignoreClosed = () => undefined;
  if (e === 'approve') {
    await handle.signal(insurerDecisionSignal, { decision: 'APPROVED', uhid: `U-${id}` }).catch(ignoreClosed);
  } else if (e === 'reject') {
    await handle
      .signal(insurerDecisionSignal, { decision: 'REJECTED', rejection_reason: 'storm' })
      .catch(ignoreClosed);
  } else if (e === 'cancelSignal') {
    await handle.signal(cancelEndorsementSignal).catch(ignoreClosed);
  } else {
    const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
    answers[res.status] = (answers[res.status] ?? 0) + 1;
    expect([200, 409], res.text).to.include(res.status);
  }
}

async function expectConsistent(
  world: World,
  id: string,
  employeeId: string,
  state: EndorsementState,
  withdrawn: string[],
): Promise<void> {
  const [row] = await sql('select status, uhid from endorsements where id = ?', [id]);
  expect(row.status).to.equal(state.status);
  const got = await world.api.get(`/v1/policy/endorsements/${id}`, { token: world.token });
  expect(got.body.payload.endorsement.status).to.equal(state.status);

  const finals = await sql(
    `select action from audit_events where entity = 'endorsement' and entity_id = ? and action in ('approve', 'reject', 'cancel')`,
    [id],
  );
  expect(finals, 'one final state change').to.have.length(1);
  const approved = state.status === 'ENDORSEMENT_STATUS_APPROVED';
  const members = await sql('select id from policy_members where endorsement_id = ?', [id]);
  const ledger = await sql("select id from cd_ledger_entries where endorsement_id = ? and kind = 'debit'", [
    id,
  ]);
  expect(members).to.have.length(approved ? 1 : 0);
  expect(ledger).to.have.length(approved ? 1 : 0);
  if (approved) expect(row.uhid).to.equal(`U-${id}`);
  const cancelledAfterSubmit = state.status === 'ENDORSEMENT_STATUS_CANCELLED' && state.submitted;
  expect(withdrawn.filter((w) => w === id)).to.have.length(cancelledAfterSubmit ? 1 : 0);
  const others = await sql(
    `select count(*)::int as n from policy_members where employee_id = ? and status = 'active'`,
    [employeeId],
  );
  expect(others[0].n).to.equal(approved ? 1 : 0);
}
