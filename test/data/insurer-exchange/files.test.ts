import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { queueWithdrawal } from '../../../data/insurer-exchange/cut-off.js';
import {
  claimCutOff,
  claimWithdrawals,
  listClaimedByCutOff,
  readFileEndorsementsAcrossClients,
} from '../../../data/insurer-exchange/files.js';
import { SystemScope } from '../../../data/scope.js';
import type { EndorsementStatus, EndorsementType } from '../../../domain/enums.js';
import { newId } from '../../../domain/ids.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeEndorsement,
  makePolicy,
  makeReferenceData,
  sql,
} from '../../support/factories.js';
import { stack } from '../../support/stack.js';

const system = () => SystemScope.of(stack().serviceOrm.em);
const MINUTE = 60_000;

/** A client whose insurer carries `code`, with one ESC policy. */
async function clientOfInsurer(code: string) {
  const { clientId } = await makeClient();
  const reference = await makeReferenceData(clientId, { code });
  const policy = await makePolicy(clientId, { reference, coverageType: 'COVERAGE_TYPE_ESC' });
  return { clientId, policy };
}

async function endorse(
  clientId: string,
  policyId: string,
  o: { reviewedAt: Date | null; status?: EndorsementStatus; type?: EndorsementType; name?: string },
) {
  const employee = await makeEmployee(clientId, { name: o.name ?? 'Asha Rao', dateOfBirth: '1990-03-07' });
  const id = await makeEndorsement(clientId, policyId, {
    employeeId: employee.id,
    type: o.type,
    status: o.status,
    start: '2026-11-02',
    premium: '3000.00',
    sumInsured: '500000.00',
    cutOffQueuedAt: o.reviewedAt,
  });
  return { id, employee };
}

describe('data: endorsements for an insurer file (D14)', () => {
  it("claims a file insurer's queued PENDING endorsements up to the cut-off, across its clients", async () => {
    const code = `FILE-${randomBytes(3).toString('hex')}`;
    const a = await clientOfInsurer(code);
    const b = await clientOfInsurer(code);
    const other = await clientOfInsurer(`${code}-X`);
    const cutOff = new Date();
    const earlier = new Date(cutOff.getTime() - 5 * MINUTE);
    const waiting = await endorse(a.clientId, a.policy.id, { reviewedAt: earlier });
    await makeDependent(a.clientId, waiting.employee.id, {
      name: 'Vikram Rao',
      relationship: 'SPOUSE',
      gender: 'MALE',
      dateOfBirth: '1988-11-23',
    });
    const deletion = await endorse(b.clientId, b.policy.id, {
      reviewedAt: earlier,
      type: 'ENDORSEMENT_TYPE_DELETION',
      name: 'Rahul Mehta',
    });
    // Not waiting: not queued by review, queued after the cut-off, already sent, another insurer.
    await endorse(a.clientId, a.policy.id, { reviewedAt: null });
    await endorse(a.clientId, a.policy.id, { reviewedAt: new Date(cutOff.getTime() + MINUTE) });
    await endorse(a.clientId, a.policy.id, {
      reviewedAt: earlier,
      status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
    });
    await endorse(other.clientId, other.policy.id, { reviewedAt: earlier });

    expect(await claimCutOff(system(), { insurerCode: code, cutOff })).to.equal(2);
    const rows = await listClaimedByCutOff(system(), { insurerCode: code, cutOff });

    expect(rows.map((r) => r.endorsementId).sort()).to.deep.equal([waiting.id, deletion.id].sort());
    const first = rows.find((r) => r.endorsementId === waiting.id)!;
    expect(first).to.deep.equal({
      endorsementId: waiting.id,
      clientId: a.clientId,
      policyId: a.policy.id,
      policyNumber: a.policy.policyNumber,
      insurerCode: code,
      coverageType: 'COVERAGE_TYPE_ESC',
      type: 'ENDORSEMENT_TYPE_ADDITION',
      employeeCode: waiting.employee.employeeCode,
      employee: { name: 'Asha Rao', gender: 'FEMALE', dateOfBirth: '1990-03-07' },
      dependents: [{ name: 'Vikram Rao', relationship: 'SPOUSE', gender: 'MALE', dateOfBirth: '1988-11-23' }],
      coverageStartDate: '2026-11-02',
      coverageEndDate: '2027-03-31',
      sumInsured: '500000.00',
      withdrawal: false,
      dependentOnly: false,
    });
    const second = rows.find((r) => r.endorsementId === deletion.id)!;
    expect([second.clientId, second.type, second.employee.name, second.dependents]).to.deep.equal([
      b.clientId,
      'ENDORSEMENT_TYPE_DELETION',
      'Rahul Mehta',
      [],
    ]);
  });

  it('gives each endorsement to one cut-off: a later one claims only what joined since, a cancel drops out', async () => {
    const code = `FILE-${randomBytes(3).toString('hex')}`;
    const a = await clientOfInsurer(code);
    const first = new Date(Date.now() - 10 * MINUTE);
    const second = new Date();
    const early = await endorse(a.clientId, a.policy.id, { reviewedAt: new Date(first.getTime() - MINUTE) });
    expect(await claimCutOff(system(), { insurerCode: code, cutOff: first })).to.equal(1);
    const late = await endorse(a.clientId, a.policy.id, { reviewedAt: new Date(first.getTime() + MINUTE) });
    expect(await claimCutOff(system(), { insurerCode: code, cutOff: second })).to.equal(1);
    // A retry of the first claims nothing more, and lists exactly what it claimed.
    expect(await claimCutOff(system(), { insurerCode: code, cutOff: first })).to.equal(0);
    const ids = async (cutOff: Date) =>
      (await listClaimedByCutOff(system(), { insurerCode: code, cutOff })).map((r) => r.endorsementId);
    expect(await ids(first)).to.deep.equal([early.id]);
    expect(await ids(second)).to.deep.equal([late.id]);
    await sql("update endorsements set status = 'ENDORSEMENT_STATUS_CANCELLED' where id = ?", [late.id]);
    expect(await ids(second)).to.deep.equal([]);
  });

  it('reads the same details for endorsements named by id, and nothing for unknown ids', async () => {
    const code = `FILE-${randomBytes(3).toString('hex')}`;
    const a = await clientOfInsurer(code);
    const one = await endorse(a.clientId, a.policy.id, { reviewedAt: new Date() });
    const rows = await readFileEndorsementsAcrossClients(system(), [one.id, newId('endorsement')]);
    expect(rows.map((r) => [r.endorsementId, r.employee.name, r.insurerCode])).to.deep.equal([
      [one.id, 'Asha Rao', code],
    ]);
    expect(await readFileEndorsementsAcrossClients(system(), [])).to.deep.equal([]);
  });

  it('gives a withdrawal (cancelled after delivery) to one cut-off, listed as a withdrawal', async () => {
    const code = `FILE-${randomBytes(3).toString('hex')}`;
    const a = await clientOfInsurer(code);
    const delivered = new Date(Date.now() - 10 * MINUTE);
    const sent = await endorse(a.clientId, a.policy.id, {
      reviewedAt: new Date(delivered.getTime() - MINUTE),
    });
    expect(await claimCutOff(system(), { insurerCode: code, cutOff: delivered })).to.equal(1);
    // Only a cancelled endorsement that a cut-off carried can be withdrawn.
    expect(await queueWithdrawal(system(), sent.id)).to.equal(false);
    await sql("update endorsements set status = 'ENDORSEMENT_STATUS_CANCELLED' where id = ?", [sent.id]);
    expect(await queueWithdrawal(system(), sent.id)).to.equal(true);
    const next = new Date(Date.now() + MINUTE);
    expect(await claimWithdrawals(system(), { insurerCode: code, cutOff: next })).to.equal(1);
    // A retry, or a concurrent cut-off, claims it no more.
    expect(await claimWithdrawals(system(), { insurerCode: code, cutOff: next })).to.equal(0);
    expect(
      await claimWithdrawals(system(), { insurerCode: code, cutOff: new Date(next.getTime() + 1000) }),
    ).to.equal(0);
    const rows = await listClaimedByCutOff(system(), { insurerCode: code, cutOff: next });
    expect(rows.map((r) => [r.endorsementId, r.withdrawal])).to.deep.equal([[sent.id, true]]);
    // The cut-off that delivered it lists it no more (cancelled).
    expect(await listClaimedByCutOff(system(), { insurerCode: code, cutOff: delivered })).to.deep.equal([]);
  });
});
