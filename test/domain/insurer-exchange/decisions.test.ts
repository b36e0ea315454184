import { expect } from 'chai';
import {
  cleanMemberUhids,
  closedVerdict,
  decisionVerdict,
  isInsurerAssignment,
  manualDecisionRefusal,
  type DecisionTarget,
} from '../../../domain/insurer-exchange/decisions.js';
import { submissionFailure } from '../../../domain/insurer-exchange/failures.js';

const sent: DecisionTarget = {
  status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
  cancelRequested: false,
  discarded: false,
};

describe('insurer decision verdict (D14)', () => {
  it('accepts the first well-formed decision once the insurer has the endorsement', () => {
    expect(decisionVerdict(sent, null, { decision: 'APPROVED', uhid: 'U1' })).to.deep.equal({
      result: 'accepted',
      detail: 'APPROVED recorded',
    });
  });

  it('answers duplicate for the same outcome and refuses another outcome', () => {
    expect(decisionVerdict(sent, 'REJECTED', { decision: 'REJECTED' })).to.deep.equal({
      result: 'duplicate',
      detail: 'already REJECTED',
    });
    expect(decisionVerdict(sent, 'REJECTED', { decision: 'APPROVED' })).to.deep.equal({
      result: 'refused',
      detail: 'already decided with another outcome: REJECTED',
    });
  });

  it('refuses before submission, after a cancel and for a discarded endorsement', () => {
    const pending = { ...sent, status: 'ENDORSEMENT_STATUS_PENDING' as const };
    expect(decisionVerdict(pending, null, { decision: 'APPROVED' }).detail).to.equal(
      'not yet submitted to the insurer',
    );
    expect(
      decisionVerdict({ ...sent, cancelRequested: true }, null, { decision: 'APPROVED' }).detail,
    ).to.equal('endorsement is cancelled');
    expect(decisionVerdict({ ...sent, discarded: true }, null, { decision: 'APPROVED' }).detail).to.equal(
      'not found',
    );
  });

  it('refuses a malformed decision with the field at fault', () => {
    expect(decisionVerdict(sent, null, { decision: 'MAYBE' })).to.deep.equal({
      result: 'refused',
      detail: 'malformed decision: decision must be APPROVED or REJECTED',
    });
    expect(decisionVerdict(sent, null, { decision: 'APPROVED', uhid: 42 }).detail).to.equal(
      'malformed decision: uhid must be text of at most 100 characters',
    );
    expect(decisionVerdict(sent, null, null).detail).to.equal('malformed decision: not an object');
    expect(decisionVerdict(sent, null, { decision: 'APPROVED', source: 'x'.repeat(201) }).detail).to.equal(
      'malformed decision: source must be text of at most 200 characters',
    );
    expect(
      decisionVerdict(sent, null, { decision: 'APPROVED', source: 'response file R.csv, row 2' }),
    ).to.include({
      result: 'accepted',
    });
  });

  it("refuses an insurer's text that breaks the text rules, naming the field and the rule", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ uhid: '=1+1' }, 'uhid must not start with =, +, - or @'],
      [{ uhid: 'UH\u202e1' }, 'uhid must not contain bidirectional formatting characters'],
      [{ uhid: 'UH\u00071' }, 'uhid must not contain control characters'],
      [{ insurer_member_id: '@M-1' }, 'insurer_member_id must not start with =, +, - or @'],
      [{ insurer_member_id: 'M\u200b1' }, 'insurer_member_id must not contain invisible characters'],
      [
        { members: [{ dependent_id: 'dep_a', uhid: '+UH' }] },
        "a member's uhid must not start with =, +, - or @",
      ],
    ];
    for (const [fields, why] of cases) {
      expect(decisionVerdict(sent, null, { decision: 'APPROVED', ...fields })).to.deep.equal({
        result: 'refused',
        detail: `malformed decision: ${why}`,
      });
    }
    expect(
      decisionVerdict(sent, null, { decision: 'REJECTED', rejection_reason: 'Age\u2066 above limit' }).detail,
    ).to.equal('malformed decision: rejection_reason must not contain bidirectional formatting characters');
    // A reason is free text: it may start with a dash and run over lines.
    expect(
      decisionVerdict(sent, null, {
        decision: 'REJECTED',
        rejection_reason: '- age above limit\n- no proof',
      }),
    ).to.include({ result: 'accepted' });
  });

  it('takes per-dependent UHIDs on an approval only, by dependent id, each person once', () => {
    const members = [{ dependent_id: 'dep_a', uhid: 'UH-S' }];
    expect(decisionVerdict(sent, null, { decision: 'APPROVED', members }).result).to.equal('accepted');
    const refused = 'malformed decision: members must be at most 20 {dependent_id, uhid} of an approval';
    for (const bad of [
      { decision: 'REJECTED', rejection_reason: 'r', members },
      { decision: 'APPROVED', members: [{ dependent_id: 'emp_a', uhid: 'U' }] },
      { decision: 'APPROVED', members: [{ dependent_id: 'dep_a', uhid: '' }] },
      { decision: 'APPROVED', members: [...members, ...members] },
      { decision: 'APPROVED', members: 'dep_a' },
    ]) {
      expect(decisionVerdict(sent, null, bad).detail).to.equal(refused);
    }
    expect(cleanMemberUhids([...members, { dependent_id: 'dep_a', uhid: 'X' }, { uhid: 'Y' }])).to.deep.equal(
      members,
    );
    expect(cleanMemberUhids(undefined)).to.equal(undefined);
  });

  it('answers a closed endorsement from its final status', () => {
    expect(closedVerdict('ENDORSEMENT_STATUS_APPROVED', 'APPROVED').result).to.equal('duplicate');
    expect(closedVerdict('ENDORSEMENT_STATUS_REJECTED', 'APPROVED').detail).to.equal(
      'already decided with another outcome: REJECTED',
    );
    expect(closedVerdict('ENDORSEMENT_STATUS_CANCELLED', 'REJECTED').detail).to.equal(
      'endorsement is cancelled',
    );
  });
});

describe("an operator's manual decision (D14): only for what the insurer received", () => {
  it('is allowed for an endorsement the insurer received', () => {
    expect(manualDecisionRefusal({ status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER', received: true })).to.equal(
      null,
    );
  });

  it('is refused, forcibly, for one SENT_TO_INSURER whose submission has not reached the insurer', () => {
    expect(
      manualDecisionRefusal({ status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER', received: false }),
    ).to.deep.equal({
      detail:
        "endorsement is SENT_TO_INSURER but the insurer has not received it (its submission has not succeeded; the workflow's details say why)",
      forcible: true,
    });
  });

  it('is refused for a PENDING one, and no override helps (nothing was sent)', () => {
    expect(manualDecisionRefusal({ status: 'ENDORSEMENT_STATUS_PENDING', received: false })).to.deep.equal({
      detail: 'endorsement is PENDING: not yet sent to the insurer',
      forcible: false,
    });
  });

  it('leaves a closed one to the workflow (a repeat is a duplicate, another outcome refused)', () => {
    expect(manualDecisionRefusal({ status: 'ENDORSEMENT_STATUS_APPROVED', received: true })).to.equal(null);
  });
});

describe('a failed submission as the details show it', () => {
  it("keeps the adapter's fix, else names one for its kind, on one bounded line", () => {
    const named = submissionFailure('A\n  B', 'InsurerUnavailable', 'set X on the worker', 2);
    expect(named).to.deep.equal({ error: 'A B', fix: 'set X on the worker', attempt: 2 });
    expect(submissionFailure('x', 'InsurerRefused', undefined, 1).fix).to.match(/^the insurer refused/);
    expect(submissionFailure('x'.repeat(600), undefined, undefined, 1).error).to.have.length(501);
  });
});

describe("an insurer assignment carried in a cut-off's signal", () => {
  const told = { insurerId: 'ins_1', submittedAt: '2026-11-30T05:00:00.123Z', slaDays: 5 };

  it('is trusted only when whole: an insurer, an instant, whole days or none', () => {
    expect(isInsurerAssignment(told)).to.equal(true);
    expect(isInsurerAssignment({ ...told, slaDays: null })).to.equal(true);
    // A signal of an older cut-off carries none; a malformed one is read again from the database.
    for (const bad of [
      undefined,
      null,
      'ins_1',
      { ...told, insurerId: '' },
      { ...told, insurerId: 7 },
      { ...told, submittedAt: null },
      { ...told, submittedAt: 'yesterday' },
      { ...told, slaDays: 0 },
      { ...told, slaDays: 2.5 },
      { ...told, slaDays: '5' },
      { insurerId: 'ins_1', submittedAt: told.submittedAt },
    ])
      expect(isInsurerAssignment(bad), JSON.stringify(bad)).to.equal(false);
  });
});
