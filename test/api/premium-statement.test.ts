import { expect } from 'chai';
import { postCdEntry } from '../../data/cd-account/ledger.js';
import { TenantScope } from '../../data/scope.js';
import type { EndorsementType } from '../../domain/enums.js';
import { newId } from '../../domain/ids.js';
import { expectCdLedgersBalanced } from '../support/cd-ledger-check.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeEndorsement,
  makePolicy,
  sql,
  type TestClient,
} from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { pdfText } from '../support/pdf-text.js';
import { stack } from '../support/stack.js';

/** A spouse's name as a client might type it: a spreadsheet would run it if written bare. */
const HOSTILE_NAME = '=HYPERLINK("http://x.example","Asha")';

/** Reads a CSV of ours back: CRLF rows, text cells quoted (quotes doubled), numbers bare. */
function parseCsv(text: string): { cells: string[][]; quoted: boolean[][] } {
  const cells: string[][] = [];
  const quoted: boolean[][] = [];
  for (const line of text.split('\r\n').filter(Boolean)) {
    const row: string[] = [];
    const rowQuoted: boolean[] = [];
    for (const m of line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)) {
      rowQuoted.push(m[1] !== undefined);
      row.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!);
    }
    cells.push(row);
    quoted.push(rowQuoted);
  }
  return { cells, quoted };
}

describe('GET /v1/policy/{policy_id}/statements/{month}', function () {
  let http: HttpClient;
  let apiUrl: string;
  let c: TestClient;
  let token: string;
  let policyId: string;
  const ids = { addition: '', deletion: '', spouse: '', leaver: '' };
  const names = { spouse: HOSTILE_NAME, leaver: '' };

  /** Posts through the ledger's one writer, then dates the entry (the writer stamps now()). */
  async function post(
    scope: TenantScope,
    at: string,
    p: {
      kind: 'top_up' | 'hold' | 'release' | 'debit' | 'credit';
      amount: bigint;
      held: bigint;
      endorsementId?: string;
      reference?: string;
    },
  ): Promise<void> {
    const totals = await postCdEntry(scope, { policyId, guarded: false, reason: 'statement test', ...p });
    expect(totals, `${p.kind} posted`).to.not.equal(null);
    await sql(
      `update cd_ledger_entries set created_at = ?::timestamptz
        where id = (select id from cd_ledger_entries where policy_id = ? order by seq desc limit 1)`,
      [at, policyId],
    );
  }

  async function endorsement(o: {
    employeeId: string;
    dependentId?: string;
    type: EndorsementType;
    start: string;
    end: string;
    premium: string;
  }): Promise<string> {
    return makeEndorsement(c.clientId, policyId, {
      ...o,
      status: 'ENDORSEMENT_STATUS_APPROVED',
      decidedAt: new Date(),
    });
  }

  before(async () => {
    const api = await stack().startApi();
    apiUrl = api.url;
    http = client(apiUrl);
    c = await makeClient();
    token = c.token(['policy.get']);
    const policy = await makePolicy(c.clientId, { cdBalance: '100000.00' });
    policyId = policy.id;
    // The opening balance was loaded in September.
    await sql(`update cd_ledger_entries set created_at = '2026-09-15T10:00:00+05:30' where policy_id = ?`, [
      policyId,
    ]);
    const joiner = await makeEmployee(c.clientId);
    ids.spouse = (
      await makeDependent(c.clientId, joiner.id, { name: HOSTILE_NAME, relationship: 'SPOUSE' })
    ).id;
    const leaver = await makeEmployee(c.clientId);
    names.leaver = leaver.name;
    ids.leaver = leaver.id;
    ids.addition = await endorsement({
      employeeId: joiner.id,
      dependentId: ids.spouse,
      type: 'ENDORSEMENT_TYPE_ADDITION',
      start: '2026-11-06',
      end: '2027-03-31',
      premium: '1464.01',
    });
    ids.deletion = await endorsement({
      employeeId: leaver.id,
      type: 'ENDORSEMENT_TYPE_DELETION',
      start: '2026-04-01',
      end: '2026-11-10',
      premium: '-1413.99',
    });
    const scope = TenantScope.of(stack().orm.em, c.clientId);
    // 22:30 on 31 October in India: October's, though the same UTC day as the next one.
    await post(scope, '2026-10-31T17:00:00Z', {
      kind: 'top_up',
      amount: 5000_00n,
      held: 0n,
      reference: 'UTR-OCT',
    });
    // 00:30 on 1 November in India (still 31 October in UTC): November's.
    await post(scope, '2026-10-31T19:00:00Z', {
      kind: 'top_up',
      amount: 2500_50n,
      held: 0n,
      reference: 'UTR-NOV',
    });
    await post(scope, '2026-11-05T12:00:00+05:30', {
      kind: 'hold',
      amount: 0n,
      held: 1464_01n,
      endorsementId: ids.addition,
    });
    await post(scope, '2026-11-06T12:00:00+05:30', {
      kind: 'release',
      amount: 0n,
      held: -1464_01n,
      endorsementId: ids.addition,
    });
    await post(scope, '2026-11-06T12:00:01+05:30', {
      kind: 'debit',
      amount: -1464_01n,
      held: 0n,
      endorsementId: ids.addition,
    });
    await post(scope, '2026-11-10T12:00:00+05:30', {
      kind: 'credit',
      amount: 1413_99n,
      held: 0n,
      endorsementId: ids.deletion,
    });
    // 00:10 on 1 December in India: December's.
    await post(scope, '2026-11-30T18:40:00Z', {
      kind: 'top_up',
      amount: 999_00n,
      held: 0n,
      reference: 'UTR-DEC',
    });
  });

  after(async () => expectCdLedgersBalanced());

  /** The ledger's balance after the last entry before an instant, read from its rows. */
  async function ledgerBalanceBefore(instant: string): Promise<number> {
    const [row] = await sql(
      `select balance_after::text as balance from cd_ledger_entries
        where policy_id = ? and created_at < ?::timestamptz order by seq desc limit 1`,
      [policyId, instant],
    );
    return Number(row.balance);
  }

  it("lists the month's postings, each with its endorsement, members and pro-rata days, and matches the ledger", async () => {
    const res = await http.get(`/v1/policy/${policyId}/statements/2026-11`, { token });
    expect(res.status).to.equal(200);
    const s = res.body.payload.statement;
    expect(res.body.payload).to.include({ message: 'Premium statement fetched successfully', success: true });
    expect(s).to.include({ policy_id: policyId, month: '2026-11' });
    expect(s.postings.map((p: { kind: string; amount: number }) => [p.kind, p.amount])).to.deep.equal([
      ['top_up', 2500.5],
      ['debit', -1464.01],
      ['credit', 1413.99],
    ]);
    const [topUp, debit, credit] = s.postings;
    expect(topUp).to.include({
      reference: 'UTR-NOV',
      endorsement_id: null,
      pro_rata_days: null,
      posted_on: '2026-11-01',
    });
    expect(topUp.members).to.deep.equal([]);
    expect(debit).to.include({ endorsement_id: ids.addition, endorsement_type: 'ENDORSEMENT_TYPE_ADDITION' });
    expect(debit.members).to.deep.equal([{ name: HOSTILE_NAME, relationship: 'SPOUSE' }]);
    expect(debit.pro_rata_days, '6 November to 31 March, both included').to.equal(146);
    expect(credit).to.include({
      endorsement_id: ids.deletion,
      endorsement_type: 'ENDORSEMENT_TYPE_DELETION',
    });
    expect(credit.members).to.deep.equal([{ name: names.leaver, relationship: 'SELF' }]);
    expect(credit.pro_rata_days, '11 November to 31 March').to.equal(141);

    const opening = await ledgerBalanceBefore('2026-11-01T00:00:00+05:30');
    const closing = await ledgerBalanceBefore('2026-12-01T00:00:00+05:30');
    expect(opening).to.equal(105000);
    expect(s.opening_balance).to.equal(opening);
    expect(s.closing_balance).to.equal(closing);
    const paise = (n: number) => Math.round(n * 100);
    const sum = s.postings.reduce((t: number, p: { amount: number }) => t + paise(p.amount), 0);
    expect(paise(s.opening_balance) + sum).to.equal(paise(s.closing_balance));
    expect(s.postings.at(-1).balance).to.equal(closing);
  });

  it('answers the same statement as CSV, every text cell formula-safe', async () => {
    const res = await fetch(`${apiUrl}/v1/policy/${policyId}/statements/2026-11`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/csv' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    const { cells, quoted } = parseCsv(await res.text());
    expect(cells[0]).to.deep.equal([
      'posted_on',
      'kind',
      'endorsement_id',
      'endorsement_type',
      'members',
      'pro_rata_days',
      'reference',
      'amount',
      'balance',
    ]);
    expect(cells.map((r) => [r[1], r[7], r[8]])).to.deep.equal([
      ['kind', 'amount', 'balance'],
      ['opening', '', '105000'],
      ['top_up', '2500.5', '107500.5'],
      ['debit', '-1464.01', '106036.49'],
      ['credit', '1413.99', '107450.48'],
      ['closing', '', '107450.48'],
    ]);
    expect(cells[3]![4]).to.equal(`'${HOSTILE_NAME} (SPOUSE)`);
    expect(cells[3]![5]).to.equal('146');
    cells.forEach((row, i) =>
      row.forEach((cell, j) => {
        // Text never leads with a formula character; a bare cell is a number of ours (a debit is negative).
        if (quoted[i]![j]) expect(cell, `row ${i} cell ${j}`).to.not.match(/^[=+\-@]/);
        else expect(cell, `row ${i} cell ${j}`).to.match(/^(-?\d+(\.\d+)?)?$/);
      }),
    );
  });

  it('answers the same statement as a PDF holding the closing balance', async () => {
    const res = await fetch(`${apiUrl}/v1/policy/${policyId}/statements/2026-11`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/pdf' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    const { text } = await pdfText(bytes);
    expect(text).to.include('Closing balance: INR 107450.48');
    expect(text).to.include('Opening balance: INR 105000.00');
  });

  it("answers 404 for another client's policy as for an unknown one", async () => {
    const other = await makeClient();
    const foreign = await http.get(`/v1/policy/${policyId}/statements/2026-11`, {
      token: other.token(['policy.get']),
    });
    const unknown = await http.get(`/v1/policy/${newId('policy')}/statements/2026-11`, { token });
    expect(foreign.status).to.equal(404);
    expect(foreign.body).to.deep.equal({ ...unknown.body, instance: foreign.body.instance });
    expect(foreign.body).to.include({ type: 'NOT_FOUND', title: 'Policy Not Found' });
  });

  it('answers 400 for a month that is not a calendar month', async () => {
    for (const month of ['2026-13', '2026-00', '2026-1', 'november']) {
      const res = await http.get(`/v1/policy/${policyId}/statements/${month}`, { token });
      expect(res.status, month).to.equal(400);
      expect(res.body, month).to.include({ type: 'VALIDATION_ERROR' });
      expect(res.body.detail, month).to.match(/month/);
    }
  });
});
