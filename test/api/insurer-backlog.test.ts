import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { durationMs } from '../../workflows/endorsement/contract.js';
import {
  makeDependent,
  makeEmployee,
  makeInsurerClient,
  makeReferenceData,
  sql,
} from '../support/factories.js';
import type { TestInsurerClient } from '../support/factories.js';
import { stack, TEST_KEYS } from '../support/stack.js';
import {
  createEndorsement,
  makeWorld,
  WAIT_MS,
  waitFor,
  waitForStatus,
  workflowState,
  type World,
} from '../workflows/endorsement-support.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';

/** `npm run -s admin -- … --json` as an operator runs it, against this run's database. */
async function admin(...args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'],
    { cwd: ROOT, env: { ...process.env, ...TEST_KEYS, ...stack().databaseEnv } },
  );
  return JSON.parse(stdout);
}

/** Waits until each endorsement is SENT_TO_INSURER in its row and in its workflow's state. */
async function sentToInsurer(ids: string[]): Promise<void> {
  for (const id of ids) {
    await waitForStatus(id, SENT);
    await waitFor(
      () => workflowState(id),
      (s) => s.status === SENT,
      `${id} submitted`,
    );
  }
}

describe('the insurer’s backlog and credentials (D14, D18)', function () {
  this.timeout(12 * WAIT_MS);
  let first: World;
  let second: World;
  let other: World;
  let insurer: TestInsurerClient;
  /** The insurer's endorsements, oldest first (by when each was sent, then id). */
  let backlog: string[];
  let elsewhere: string;

  before(async () => {
    first = await makeWorld();
    const [{ insurer_id: insurerId, code }] = await sql(
      'select p.insurer_id, i.code from policies p join insurers i on i.id = p.insurer_id where p.id = ?',
      [first.policy.id],
    );
    // A second client whose policy names the same insurer (one platform row per code, D12).
    const reference = await makeReferenceData('', { code });
    second = await makeWorld({ api: first.api, policy: { reference } });
    other = await makeWorld({ api: first.api });
    insurer = await makeInsurerClient(insurerId);
    await makeDependent(first.client.clientId, first.employee.id, {
      name: 'Meera Rao',
      relationship: 'SPOUSE',
      gender: 'FEMALE',
      dateOfBirth: '1991-05-02',
    });
    const ids: string[] = [];
    for (const world of [first, second, first, second, first]) {
      const employee =
        world === first && ids.length === 0 ? world.employee : await makeEmployee(world.client.clientId);
      ids.push(await createEndorsement({ ...world, employee: { ...world.employee, id: employee.id } }));
    }
    elsewhere = await createEndorsement(other);
    await sentToInsurer([...ids, elsewhere]);
    const rows = await sql('select id from endorsements where id in (?) order by sent_to_insurer_at, id', [
      ids,
    ]);
    backlog = rows.map((r) => r.id as string);
  });

  const list = (token: string, query = '') => first.api.get(`/v1/insurer/endorsements${query}`, { token });

  it('lists what waits across both clients, oldest first, paged by keyset forward and back', async () => {
    const token = insurer.token();
    const seen: string[] = [];
    const pages: any[] = [];
    let cursor = '';
    do {
      const res = await list(token, `?status=${SENT}&limit=2${cursor ? `&start_cursor=${cursor}` : ''}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.payload.total_count).to.equal(5);
      pages.push(res.body.payload);
      seen.push(...res.body.payload.endorsements.map((e: { endorsement_id: string }) => e.endorsement_id));
      cursor = res.body.payload.has_next ? res.body.payload.end_cursor : '';
    } while (cursor);
    expect(seen).to.deep.equal(backlog);
    expect(pages.map((p) => p.endorsements.length)).to.deep.equal([2, 2, 1]);
    expect(pages.map((p) => [p.has_previous, p.has_next])).to.deep.equal([
      [false, true],
      [true, true],
      [true, false],
    ]);
    // Back from the last page: the middle page again.
    const back = await list(token, `?limit=2&last_cursor=${pages[2].start_cursor}`);
    expect(back.status, back.text).to.equal(200);
    expect(back.body.payload.endorsements).to.deep.equal(pages[1].endorsements);
    // A cursor of this list is no other list's: another insurer's token gets a 400 for it.
    const foreign = await makeInsurerClient(
      (await sql('select insurer_id from policies where id = ?', [other.policy.id]))[0].insurer_id,
    );
    const refused = await list(foreign.token(), `?start_cursor=${pages[0].end_cursor}`);
    expect(refused.status).to.equal(400);
    expect(refused.body.detail).to.equal('start_cursor: is not a valid cursor for this list');
  });

  it("carries what the insurer's file carries and the SLA due date, and no contact data", async () => {
    const res = await list(insurer.token(), '?limit=100');
    const withSpouse = res.body.payload.endorsements.find(
      (e: { policy_id: string; members: unknown[] }) =>
        e.policy_id === first.policy.id && e.members.length === 2,
    );
    expect(withSpouse, res.text).to.not.equal(undefined);
    const [employee] = await sql(
      'select employee_code, name, gender, date_of_birth::text as dob, email, phone_number from employees where id = ?',
      [first.employee.id],
    );
    const [row] = await sql(
      `select e.id, e.coverage_start_date::text as start, e.coverage_end_date::text as "end", e.sum_insured,
              to_char(e.sent_to_insurer_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as sent
         from endorsements e where e.id = ?`,
      [withSpouse.endorsement_id],
    );
    expect(withSpouse).to.deep.equal({
      endorsement_id: row.id,
      type: 'ENDORSEMENT_TYPE_ADDITION',
      status: SENT,
      policy_id: first.policy.id,
      policy_number: first.policy.policyNumber,
      employee_code: employee.employee_code,
      // The world's policy covers the spouse (ESC by default), so the file lists her after the employee.
      members: [
        { relationship: 'SELF', name: employee.name, gender: employee.gender, date_of_birth: employee.dob },
        { relationship: 'SPOUSE', name: 'Meera Rao', gender: 'FEMALE', date_of_birth: '1991-05-02' },
      ],
      coverage_start_date: row.start,
      coverage_end_date: row.end,
      sum_insured: Number(row.sum_insured),
      sent_to_insurer_at: row.sent,
      sla_due_at: new Date(
        Date.parse(row.sent) + durationMs(stack().config.INSURER_SLA_DEFAULT),
      ).toISOString(),
    });
    expect(res.text).to.not.contain(employee.email);
    expect(res.text).to.not.contain(employee.phone_number);
  });

  it('answers one endorsement; another insurer’s and an unknown id alike (404)', async () => {
    const token = insurer.token();
    const one = await first.api.get(`/v1/insurer/endorsements/${backlog[0]}`, { token });
    expect(one.status, one.text).to.equal(200);
    expect(one.body.payload.endorsement.endorsement_id).to.equal(backlog[0]);
    const listed = await list(token, '?limit=1');
    expect(one.body.payload.endorsement).to.deep.equal(listed.body.payload.endorsements[0]);
    const theirs = await first.api.get(`/v1/insurer/endorsements/${elsewhere}`, { token });
    const unknown = await first.api.get('/v1/insurer/endorsements/end_doesnotexist000000000', { token });
    for (const res of [theirs, unknown]) {
      expect(res.status).to.equal(404);
      expect({ type: res.body.type, title: res.body.title, detail: res.body.detail }).to.deep.equal({
        type: 'NOT_FOUND',
        title: 'Endorsement Not Found',
        detail: '',
      });
    }
  });

  it('reads with insurer.endorsements and decides with insurer.decisions, each scope alone', async () => {
    const decideOnly = insurer.token(['insurer.decisions']);
    const readOnly = insurer.token(['insurer.endorsements']);
    const read = await list(decideOnly);
    expect(read.status).to.equal(403);
    expect(read.body.detail).to.equal('requires one of: insurer.endorsements');
    const decide = await first.api.post('/v1/insurer/decisions', {
      token: readOnly,
      body: { decisions: [{ endorsement_id: backlog[0], decision: 'APPROVED' }] },
    });
    expect(decide.status).to.equal(403);
    expect(decide.body.detail).to.equal('requires one of: insurer.decisions');
    // A client's token is no insurer's.
    expect((await list(first.token)).status).to.equal(401);
  });

  it('an endorsement the insurer decides leaves its backlog', async () => {
    const decided = backlog[backlog.length - 1]!;
    const res = await first.api.post('/v1/insurer/decisions', {
      token: insurer.token(),
      body: { decisions: [{ endorsement_id: decided, decision: 'APPROVED' }] },
    });
    expect(res.body.payload.results).to.deep.equal([
      { endorsement_id: decided, result: 'accepted', detail: 'APPROVED recorded' },
    ]);
    await waitForStatus(decided, 'ENDORSEMENT_STATUS_APPROVED');
    const after = await list(insurer.token(), '?limit=100');
    expect(after.body.payload.total_count).to.equal(4);
    expect(
      after.body.payload.endorsements.map((e: { endorsement_id: string }) => e.endorsement_id),
    ).to.deep.equal(backlog.slice(0, -1));
    const one = await first.api.get(`/v1/insurer/endorsements/${decided}`, { token: insurer.token() });
    expect(one.body.payload.endorsement.status).to.equal('ENDORSEMENT_STATUS_APPROVED');
    backlog = backlog.slice(0, -1);
  });

  describe('credentials: list, rotate, revoke (D18)', () => {
    const tokenRequest = (clientId: string, secret: string) =>
      first.api.post('/v1/auth/token', {
        body: { client_id: clientId, client_secret: secret, scopes: ['insurer.endorsements'] },
      });

    it('rotate: the old secret and every token issued with it stop at once; the new secret works', async () => {
      const [{ code }] = await sql('select code from insurers where id = ?', [insurer.insurerId]);
      const made = await admin('insurer-client:create', code);
      const before = await tokenRequest(made.client_id, made.client_secret);
      expect(before.status, before.text).to.equal(200);
      const oldToken = before.body.payload.access_token as string;
      expect((await list(oldToken)).status).to.equal(200);

      const rotated = await admin('insurer-client:rotate', made.client_id);
      expect(rotated).to.include({ client_id: made.client_id, insurer_code: code, secret_version: 2 });
      expect(rotated.client_secret).to.not.equal(made.client_secret);

      const refused = await list(oldToken);
      expect(refused.status).to.equal(401);
      expect(refused.body).to.include({ type: 'UNAUTHORIZED', title: 'Unauthorized' });
      const oldSecret = await tokenRequest(made.client_id, made.client_secret);
      expect(oldSecret.status).to.equal(401);
      expect(oldSecret.body.type).to.equal('A4001');
      const fresh = await tokenRequest(made.client_id, rotated.client_secret);
      expect(fresh.status, fresh.text).to.equal(200);
      const page = await list(fresh.body.payload.access_token);
      expect(page.status).to.equal(200);
      expect(page.body.payload.total_count).to.equal(backlog.length);
    });

    it('revoke: a token already issued answers 401 from that moment, and the secret issues no more', async () => {
      const [{ code }] = await sql('select code from insurers where id = ?', [insurer.insurerId]);
      const made = await admin('insurer-client:create', code);
      const issued = await tokenRequest(made.client_id, made.client_secret);
      const token = issued.body.payload.access_token as string;
      expect((await list(token)).status).to.equal(200);

      const revoked = await admin('insurer-client:revoke', made.client_id);
      expect(revoked).to.include({ client_id: made.client_id, insurer_code: code });
      expect(revoked.revoked_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

      const refused = await list(token);
      expect(refused.status).to.equal(401);
      expect(refused.body).to.include({ type: 'UNAUTHORIZED', title: 'Unauthorized' });
      const decisions = await first.api.post('/v1/insurer/decisions', {
        token,
        body: { decisions: [{ endorsement_id: backlog[0], decision: 'APPROVED' }] },
      });
      expect(decisions.status).to.equal(401);
      const again = await tokenRequest(made.client_id, made.client_secret);
      expect(again.status).to.equal(401);
      expect(again.body.type).to.equal('A4001');
      // The other principals of the insurer go on.
      expect((await list(insurer.token())).status).to.equal(200);

      const listed = await admin('insurer-client:list', code);
      const mine = listed.find((p: { client_id: string }) => p.client_id === made.client_id);
      expect(mine).to.deep.include({ insurer_code: code, secret_version: 1, revoked_at: revoked.revoked_at });
      expect(JSON.stringify(listed)).to.not.contain(made.client_secret);
      expect(JSON.stringify(listed)).to.not.contain('scrypt');
    });
  });
});
