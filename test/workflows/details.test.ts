import { expect } from 'chai';
import { endorsementDetails, type EndorsementView } from '../../workflows/endorsement/details.js';
import { endorsementMetadata } from '../../workflows/user-metadata.js';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const DAY = 86_400_000;

const view = (o: Partial<EndorsementView> = {}): EndorsementView => ({
  endorsementId: 'end_1',
  type: 'ENDORSEMENT_TYPE_ADDITION',
  status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
  stuck: false,
  waiting: 'decision',
  since: T0,
  stuckAt: T0 + 7 * DAY,
  slaDueAt: T0 + 14 * DAY,
  insurerCode: 'CARE',
  adapter: 'file',
  insurerSaid: null,
  received: true,
  failure: null,
  ...o,
});

/** The Markdown operators read in the Web UI (pure: no workflow, no clock). */
describe('endorsement details for the Web UI', () => {
  it('says what it waits for, since when, when it turns stuck and breaches, and what to do', () => {
    const md = endorsementDetails(view(), T0 + DAY);
    expect(md).to.contain('**waiting for:** the decision of insurer CARE since 2026-11-23 10:00 UTC');
    expect(md).to.contain('**stuck at:** 2026-11-30 10:00 UTC · **SLA breaches at:** 2026-12-07 10:00 UTC');
    expect(md).to.contain('**insurer last said:** nothing yet');
    expect(md).to.contain('`npm run -s insurer -- approve end_1');
    expect(md).to.contain('`npm run -s ops -- cancel end_1`');
    expect(md).to.not.contain('STUCK');
    // Each command a paragraph of its own, then a blank one: the Web UI cuts its frame's last line.
    const paragraphs = md.split('\n\n');
    expect(paragraphs.slice(paragraphs.indexOf('**operator can:**'))).to.deep.equal([
      '**operator can:**',
      '`npm run -s insurer -- approve end_1 --uhid … --member-id …`',
      '`npm run -s insurer -- reject end_1 --reason "…"`',
      '`npm run -s ops -- cancel end_1`',
      '&nbsp;',
    ]);
  });

  it('a failing submission shows its last error and the fix, and offers no decision', () => {
    const failure = {
      error:
        "submission of end_1 to insurer DIGIT: DIGIT_SIGNING_SECRET is not set to a signing secret of at least 32 bytes in the worker's environment",
      fix: "set DIGIT_SIGNING_SECRET in the worker's environment to the signing secret agreed with insurer DIGIT (at least 32 bytes) and restart the worker; the submission is retried by itself",
      attempt: 3,
    };
    const md = endorsementDetails(
      view({ waiting: 'submission', adapter: 'api', insurerCode: 'DIGIT', received: false, failure }),
      T0,
    );
    expect(md).to.contain(`**submission failing:** ${failure.error} (since attempt 3)`);
    expect(md).to.contain(`**to fix:** ${failure.fix}`);
    expect(md).to.contain('**insurer last said:** nothing: it has not received the endorsement');
    expect(md).to.contain(
      '**operator can:**\n\nfix the cause above: the submission is retried by itself\n\n`npm run -s ops -- cancel end_1`',
    );
    expect(md).to.not.contain('insurer -- approve');
    expect(md).to.not.contain('insurer -- reject');
  });

  it('a submission still in flight offers only a cancel', () => {
    const md = endorsementDetails(view({ waiting: 'submission', adapter: 'api', received: false }), T0);
    expect(md).to.contain('**operator can:**\n\n`npm run -s ops -- cancel end_1`\n\n&nbsp;');
    expect(md).to.not.contain('approve');
  });

  it('a submission that never reached the insurer offers a decision only as an audited override', () => {
    const failure = {
      error: 'submission of end_1 to insurer CARE: insurer refused (HTTP 400): unknown policy',
      fix: 'x',
      attempt: 1,
    };
    const md = endorsementDetails(
      view({
        adapter: 'api',
        received: false,
        failure,
        insurerSaid: 'submission not received (refused or unreachable)',
      }),
      T0,
    );
    expect(md).to.contain('**submission failing:** submission of end_1 to insurer CARE: insurer refused');
    expect(md).to.contain(
      'only if the insurer has it by other means: `npm run -s insurer -- approve|reject end_1 --force --reason "…"` (audited)',
    );
    expect(md).to.not.contain('--uhid');
  });

  it('turns the times into facts once past them, and flags STUCK', () => {
    const md = endorsementDetails(view({ stuck: true }), T0 + 15 * DAY);
    expect(md).to.contain('· **STUCK**');
    expect(md).to.contain(
      '**stuck since:** 2026-11-30 10:00 UTC · **SLA breached at:** 2026-12-07 10:00 UTC',
    );
  });

  it('names each wait: the cut-off offers a flush, funds a top-up, a recorded decision no cancel', () => {
    const cutOff = endorsementDetails(view({ waiting: 'cut-off', slaDueAt: null }), T0);
    expect(cutOff).to.contain('the next cut-off of insurer CARE');
    expect(cutOff).to.contain('`npm run -s insurer -- flush CARE`');
    const funds = endorsementDetails(view({ waiting: 'funds', stuckAt: null, slaDueAt: null }), T0);
    expect(funds).to.contain('**waiting for:** funds: the CD balance of the policy');
    expect(funds).to.contain('top up the CD balance');
    expect(funds).to.contain('`npm run -s admin -- cd:topup <policy_id> AMOUNT --reference REF`');
    const recording = endorsementDetails(
      view({ waiting: 'recording', insurerSaid: 'APPROVED (signal)' }),
      T0,
    );
    expect(recording).to.contain('**insurer last said:** APPROVED (signal)');
    expect(recording).to.not.contain('ops -- cancel');
  });

  it('names each overdue exit waiting on it (employee id, leaving date, overdue since), while open', () => {
    const exitsWaiting = [
      { employeeId: 'emp_7', policyId: 'pol_1', dateOfLeaving: '2026-12-31' },
      { employeeId: 'emp_8', policyId: 'pol_1', dateOfLeaving: '2027-02-28' },
    ];
    const md = endorsementDetails(view({ exitsWaiting }), T0);
    const lines = md.split('\n\n');
    expect(lines.slice(1, 4)).to.deep.equal([
      '**waiting for:** the decision of insurer CARE since 2026-11-23 10:00 UTC',
      '**exit waiting on it:** employee `emp_7` left on 2026-12-31, exit overdue since 2027-01-01 (policy `pol_1`): the DELETION is created once this endorsement settles',
      '**exit waiting on it:** employee `emp_8` left on 2027-02-28, exit overdue since 2027-03-01 (policy `pol_1`): the DELETION is created once this endorsement settles',
    ]);
    const closed = endorsementDetails(
      view({ status: 'ENDORSEMENT_STATUS_APPROVED', waiting: null, exitsWaiting }),
      T0,
    );
    expect(closed).to.not.contain('exit waiting');
  });

  it('has nothing to wait for once closed', () => {
    const md = endorsementDetails(view({ status: 'ENDORSEMENT_STATUS_APPROVED', waiting: null }), T0);
    expect(md).to.contain('APPROVED');
    expect(md).to.contain('**nothing to wait for**');
    expect(md).to.not.contain('waiting for:');
  });

  it('summarises with codes when the start read them, else with ids', () => {
    const base = {
      endorsementId: 'end_1',
      clientId: 'cli_1',
      policyId: 'pol_1',
      employeeId: 'emp_1',
      type: 'ENDORSEMENT_TYPE_DELETION' as const,
    };
    const codes = { policyNumber: 'CARE/GH/1', insurerCode: 'CARE', employeeCode: 'E-7' };
    expect(endorsementMetadata({ ...base, codes }).staticSummary).to.equal(
      'DELETION end_1 · policy CARE/GH/1 · insurer CARE · employee E-7',
    );
    expect(endorsementMetadata(base).staticSummary).to.equal(
      'DELETION end_1 · policy pol_1 · employee emp_1',
    );
    expect(endorsementMetadata(base).staticDetails).to.contain('`GET /v1/policy/endorsements/end_1`');
    expect(endorsementMetadata(base).staticDetails).to.contain(
      '**decide, once the insurer received it (the current details say):** `npm run -s insurer -- approve end_1',
    );
  });
});
