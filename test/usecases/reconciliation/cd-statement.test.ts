import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { localInsurerFolders } from '../../../adapters/file/local.js';
import { SystemScope } from '../../../data/scope.js';
import { topUpCd } from '../../../usecases/cd-account/account.js';
import { reconcileCdStatementFile } from '../../../usecases/reconciliation/cd-statement.js';
import { ingestInboxFiles } from '../../../usecases/insurer-exchange/inbox.js';
import { expectCdLedgersBalanced } from '../../support/cd-ledger-check.js';
import { makeClient, makePolicy, makeReferenceData, sql } from '../../support/factories.js';
import { client } from '../../support/http.js';
import { stack, TEST_KEYS } from '../../support/stack.js';
import { ROOT } from '../../../infra/processes.js';

const em = () => stack().serviceOrm.em.fork();

async function statementFile(name: string, ...lines: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cd-statement-'));
  const file = path.join(dir, name);
  await writeFile(file, `${['type,date,reference,amount', ...lines].join('\r\n')}\r\n`);
  return file;
}

const balance = async (policyId: string) =>
  ((await sql('select cd_balance::text as b from policies where id = ?', [policyId]))[0] as { b: string }).b;

describe('the insurer CD statement against our ledger', function () {
  this.timeout(60_000);

  it('records each kind of difference and posts unrecorded top-ups once, on the operator’s word', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '10000.00' });
    await topUpCd(SystemScope.of(em()), policy.id, 500_000n, 'NEFT-1');
    await topUpCd(SystemScope.of(em()), policy.id, 100_000n, 'NEFT-0');
    const file = await statementFile(
      'statement.csv',
      'opening,01/01/2026,,"10,000.00"',
      'posting,2026-02-01,NEFT-1,5000',
      'posting,2026-02-02,NEFT-2,2500.50',
      'posting,2026-02-03,end_not_ours,-3650',
      'closing,31/12/2099,,13850.50',
    );

    const looked = await reconcileCdStatementFile(em(), policy.id, file, { postTopUps: false });
    expect(looked).to.deep.include({
      repeat: false,
      status: 'completed',
      from: '2026-01-01',
      to: '2099-12-31',
      top_ups_posted: [],
    });
    expect(looked.differences).to.deep.equal([
      { kind: 'closing_mismatch', reference: null, row: null, ours: '16000.00', theirs: '13850.50' },
      { kind: 'posting_there_not_here', reference: 'NEFT-2', row: 4, ours: null, theirs: '2500.50' },
      { kind: 'posting_there_not_here', reference: 'end_not_ours', row: 5, ours: null, theirs: '-3650.00' },
      { kind: 'posting_here_not_there', reference: 'NEFT-0', row: null, ours: '1000.00', theirs: null },
    ]);
    expect(looked.counts).to.include({ posting_there_not_here: 2, closing_mismatch: 1, opening_mismatch: 0 });
    expect(await balance(policy.id)).to.equal('16000.00');

    const posted = await reconcileCdStatementFile(em(), policy.id, file, { postTopUps: true });
    // Recorded once: the same statement (same SHA-256) answers the first reconciliation.
    expect(posted).to.include({ reconciliation_id: looked.reconciliation_id, repeat: true });
    expect(posted.top_ups_posted).to.deep.equal([
      { reference: 'NEFT-2', amount: '2500.50', duplicate: false },
    ]);
    expect(await balance(policy.id)).to.equal('18500.50');

    // The same statement again: NEFT-2 is ours now, nothing is posted twice.
    const again = await reconcileCdStatementFile(em(), policy.id, file, { postTopUps: true });
    expect(again.top_ups_posted).to.deep.equal([]);
    expect(again.differences.map((d) => d.reference)).to.deep.equal([null, 'end_not_ours', 'NEFT-0']);
    expect(await balance(policy.id)).to.equal('18500.50');
    await expectCdLedgersBalanced();

    // One reconciliation, its four differences, one webhook event with ids and counts only.
    const [recorded] = await sql(
      `select (select count(*)::int from roster_reconciliations where policy_id = ?) as reconciliations,
              (select count(*)::int from cd_statement_differences where reconciliation_id = ?) as differences`,
      [policy.id, looked.reconciliation_id],
    );
    expect(recorded).to.deep.equal({ reconciliations: 1, differences: 4 });
    const events = await sql(
      `select payload from webhook_events where type = 'policy.reconciliation_completed' and client_id = ?`,
      [clientId],
    );
    expect(events.map((e: { payload: unknown }) => e.payload)).to.deep.equal([
      {
        reconciliation_id: looked.reconciliation_id,
        policy_id: policy.id,
        kind: 'cd_statement',
        status: 'completed',
        roster_rows: 3,
        counts: looked.counts,
      },
    ]);
  });

  it('records the same statement sent twice at once a single time', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '100.00' });
    const file = await statementFile('race.csv', 'opening,2026-01-01,,100', 'closing,2099-12-31,,90');
    const both = await Promise.all(
      [1, 2].map(() => reconcileCdStatementFile(em(), policy.id, file, { postTopUps: false })),
    );
    expect(new Set(both.map((r) => r.reconciliation_id)).size).to.equal(1);
    expect(both.map((r) => r.repeat).sort()).to.deep.equal([false, true]);
    const [counted] = await sql(
      `select (select count(*)::int from cd_statement_differences where client_id = ?) as differences,
              (select count(*)::int from webhook_events where client_id = ?
                 and type = 'policy.reconciliation_completed') as events`,
      [clientId, clientId],
    );
    expect(counted).to.deep.equal({ differences: 1, events: 1 });
  });

  it('shows a statement reconciliation through the reconciliation routes, to the owning client only', async () => {
    const [owner, other] = await Promise.all([makeClient(), makeClient()]);
    const policy = await makePolicy(owner.clientId, { cdBalance: '100.00' });
    const file = await statementFile(
      'api.csv',
      'opening,2026-01-01,,90',
      'posting,2026-01-02,NEFT-API,-1.50',
      'closing,2099-12-31,,100',
    );
    const done = await reconcileCdStatementFile(em(), policy.id, file, { postTopUps: false });
    const http = client((await stack().startApi()).url);
    const token = owner.token(['policy.get']);
    const list = await http.get(`/v1/policy/${policy.id}/reconciliations`, { token });
    expect(list.status, list.text).to.equal(200);
    expect(list.body.payload.reconciliations).to.have.length(1);
    expect(list.body.payload.reconciliations[0]).to.deep.include({
      id: done.reconciliation_id,
      kind: 'cd_statement',
      source: 'command',
      file_name: 'api.csv',
      status: 'completed',
      roster_rows: 1,
      counts: done.counts,
    });
    const path1 = `/v1/policy/${policy.id}/reconciliations/${done.reconciliation_id}?limit=1`;
    const first = await http.get(path1, { token });
    expect(first.status, first.text).to.equal(200);
    expect(first.body.payload.differences).to.deep.equal([
      {
        seq: 1,
        kind: 'opening_mismatch',
        reference: null,
        statement_row: null,
        ours: '100.00',
        theirs: '90.00',
      },
    ]);
    const next = await http.get(`${path1}&start_cursor=${first.body.payload.end_cursor}`, { token });
    expect(next.status, next.text).to.equal(200);
    expect(next.body.payload.differences).to.deep.equal([
      {
        seq: 2,
        kind: 'posting_there_not_here',
        reference: 'NEFT-API',
        statement_row: 3,
        ours: null,
        theirs: '-1.50',
      },
    ]);
    const foreign = other.token(['policy.get']);
    const hidden = await http.get(`/v1/policy/${policy.id}/reconciliations/${done.reconciliation_id}`, {
      token: foreign,
    });
    expect(hidden.status).to.equal(404);
  });

  it('refuses a malformed statement whole and posts nothing', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '100.00' });
    const file = await statementFile(
      'bad.csv',
      'opening,2026-01-01,,100',
      'posting,2026-01-02,NEFT-5,5000',
      'posting,2026-01-03,NEFT-6,12.345',
      'closing,2026-12-31,,5100',
    );
    const refused = await reconcileCdStatementFile(em(), policy.id, file, { postTopUps: true });
    const [row] = await sql('select kind, status, error from roster_reconciliations where id = ?', [
      refused.reconciliation_id,
    ]);
    expect(row).to.deep.equal({ kind: 'cd_statement', status: 'refused', error: refused.error });
    const [events] = await sql(
      `select count(*)::int as n from webhook_events where client_id = ? and type = 'policy.reconciliation_completed'`,
      [clientId],
    );
    expect(events.n).to.equal(0);
    expect(refused).to.deep.include({
      status: 'refused',
      error: 'row 4: amount is not an amount in rupees (at most two decimals)',
      top_ups_posted: [],
    });
    expect(await balance(policy.id)).to.equal('100.00');
    const notSheet = await statementFile('statement.pdf', 'x');
    const wrongKind = await reconcileCdStatementFile(em(), policy.id, notSheet, { postTopUps: false });
    expect(wrongKind.error).to.contain('not a spreadsheet');
  });

  it("takes a CDSTATEMENT_ file from a file insurer's inbox, leaving its top-ups to the operator; another client's policy is refused", async () => {
    const [owner, other] = await Promise.all([makeClient(), makeClient()]);
    const reference = await makeReferenceData(owner.clientId, {
      adapter: 'file',
      adapterSettings: { template: 'india-census' },
    });
    const tag = Date.now().toString(36).toUpperCase();
    const policy = await makePolicy(owner.clientId, {
      reference,
      policyNumber: `CARE/CD/${tag}`,
      cdBalance: '100.00',
    });
    const foreign = await makePolicy(other.clientId, { policyNumber: `OTHER/CD/${tag}` });
    const [{ code }] = await sql('select code from insurers where id = ?', [reference.insurerId]);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cd-inbox-'));
    const folders = localInsurerFolders(dataDir, code);
    await mkdir(folders.inbox, { recursive: true });
    const statement =
      'type,date,reference,amount\r\nopening,2026-01-01,,100\r\nposting,2026-01-02,NEFT-IN,50\r\nclosing,2099-12-31,,150\r\n';
    const name = `CDSTATEMENT_${policy.policyNumber.replaceAll('/', '-')}_202611.csv`;
    const foreignName = `cdstatement_${foreign.policyNumber.replaceAll('/', '-')}_202611.csv`;
    await writeFile(path.join(folders.inbox, name), statement);
    await writeFile(path.join(folders.inbox, foreignName), statement);

    const deps = { em: stack().orm.em, temporal: stack().temporal, dataDir, taskQueue: stack().taskQueue };
    const byName = new Map(
      (await ingestInboxFiles(deps, { insurerCode: code })).map((f) => [f.file_name, f]),
    );
    expect(byName.get(foreignName)).to.include({
      status: 'refused',
      error: `no policy of insurer ${code} has the number the file name gives`,
      moved_to: `refused/${foreignName}`,
    });
    const accepted = byName.get(name)!;
    expect(accepted).to.include({
      status: 'applied',
      error: null,
      repeat: false,
      moved_to: `processed/${name}`,
    });
    const [row] = await sql('select kind, source, status, counts from roster_reconciliations where id = ?', [
      accepted.reconciliation_id,
    ]);
    expect(row).to.deep.include({ kind: 'cd_statement', source: 'file', status: 'completed' });
    expect(row.counts).to.include({ posting_there_not_here: 1, closing_mismatch: 1 });
    // The statement's top-up waits for the operator's word.
    expect(await balance(policy.id)).to.equal('100.00');
    const ack = await readFile(path.join(folders.outbox, `${name}.ack.csv`), 'utf8');
    expect(parse(ack)[1]).to.deep.equal([
      '',
      accepted.reconciliation_id,
      'accepted',
      'CD statement reconciled',
    ]);

    // The same file sent again answers the recorded reconciliation.
    await writeFile(path.join(folders.inbox, name), statement);
    const [again] = await ingestInboxFiles(deps, { insurerCode: code, fileName: name });
    expect(again).to.include({ reconciliation_id: accepted.reconciliation_id, repeat: true });
    const [none] = await sql(
      'select count(*)::int as n from roster_reconciliations where policy_id in (?, ?)',
      [foreign.id, policy.id],
    );
    expect(none.n).to.equal(1);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses an unknown policy', async () => {
    const file = await statementFile('s.csv', 'opening,2026-01-01,,1', 'closing,2026-01-02,,1');
    let error: unknown;
    await reconcileCdStatementFile(em(), 'pol_unknown', file, { postTopUps: false }).catch(
      (e: unknown) => (error = e),
    );
    expect((error as Error).message).to.equal('no policy pol_unknown');
  });

  it('answers through `insurer cd-statement … --post-top-ups --json`, funding and waking nothing when nothing waits', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '100.00' });
    const file = await statementFile(
      'cli.csv',
      'opening,2026-01-01,,100',
      'posting,2026-01-02,NEFT-CLI,250.25',
      'closing,2099-12-31,,350.25',
    );
    const env = {
      ...process.env,
      ...TEST_KEYS,
      ...stack().databaseEnv,
      TEMPORAL_ADDRESS: stack().temporalAddress,
      TEMPORAL_NAMESPACE: stack().config.TEMPORAL_NAMESPACE,
      LOG_LEVEL: 'silent',
    };
    const args = [
      '--import',
      'tsx',
      'scripts/insurer.ts',
      'cd-statement',
      policy.id,
      file,
      '--post-top-ups',
      '--json',
    ];
    const run = await promisify(execFile)(process.execPath, args, { cwd: ROOT, env });
    expect(JSON.parse(run.stdout)).to.deep.include({
      status: 'completed',
      top_ups_posted: [{ reference: 'NEFT-CLI', amount: '250.25', duplicate: false }],
      woken: 0,
    });
    expect(await balance(policy.id)).to.equal('350.25');
  });
});
