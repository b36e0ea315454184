import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import {
  makeEmployee,
  makeInsurerClient,
  makeReferenceData,
  sql,
  type TestInsurerClient,
} from '../support/factories.js';
import { stack, TEST_KEYS } from '../support/stack.js';
import {
  createEndorsement,
  makeWorld,
  WAIT_MS,
  waitFor,
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

async function sentToInsurer(ids: string[]): Promise<void> {
  await waitFor(
    async () => {
      const rows = await sql('select count(*)::int as n from endorsements where id in (?) and status = ?', [
        ids,
        SENT,
      ]);
      return rows[0].n as number;
    },
    (n) => n === ids.length,
    `${ids.length} endorsements SENT_TO_INSURER`,
    // 500 workflows on 2 shared cores: minutes when the machine is busy, not seconds.
    120_000,
  );
  // The workflows take decisions once their own state says so (right after the row).
  for (const id of ids)
    await waitFor(
      () => workflowState(id),
      (s) => s.status === SENT,
      `${id} submitted`,
    );
}

/** Creates `n` endorsements on the world's policy (one employee each), a few at a time. */
async function endorsements(world: World, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, n - i) }, async () => {
        const employee = await makeEmployee(world.client.clientId);
        return createEndorsement({ ...world, employee: { ...world.employee, id: employee.id } });
      }),
    );
    ids.push(...batch);
  }
  return ids;
}

describe('POST /v1/insurer/decisions (D14)', function () {
  // Twelve waits' worth: 240 s on the dev server, longer on the cluster (WAIT_MS).
  this.timeout(12 * WAIT_MS);
  let world: World;
  let insurer: TestInsurerClient;

  before(async () => {
    world = await makeWorld({ policy: { cdBalance: '100000000.00' } });
    const [policy] = await sql('select insurer_id from policies where id = ?', [world.policy.id]);
    insurer = await makeInsurerClient(policy.insurer_id);
  });

  const post = (token: string, body: unknown) => world.api.post('/v1/insurer/decisions', { token, body });

  it('500 decisions in one call: the other insurer’s endorsement is not found, the rest accepted; a repeat is duplicate', async () => {
    const mine = await endorsements(world, 499);
    const other = await makeWorld({ api: world.api });
    const theirs = await createEndorsement(other);
    await sentToInsurer([...mine, theirs]);

    const decisions = [...mine.slice(0, 250), theirs, ...mine.slice(250)].map((id) => ({
      endorsement_id: id,
      decision: 'APPROVED',
      uhid: `UH-${id.slice(-6)}`,
    }));
    expect(decisions).to.have.length(500);
    const res = await post(insurer.token(), { decisions });
    expect(res.status, res.text).to.equal(200);
    const results = res.body.payload.results as { endorsement_id: string; result: string; detail: string }[];
    expect(results.map((r) => r.endorsement_id)).to.deep.equal(decisions.map((d) => d.endorsement_id));
    expect(results[250]).to.deep.equal({ endorsement_id: theirs, result: 'refused', detail: 'not found' });
    const rest = results.filter((_, i) => i !== 250);
    expect(rest.every((r) => r.result === 'accepted' && r.detail === 'APPROVED recorded')).to.equal(true);

    // Applied: every one of this insurer's endorsements APPROVED with its UHID; the other untouched.
    await waitFor(
      async () =>
        (
          await sql('select count(*)::int as n from endorsements where id in (?) and status = ?', [
            mine,
            'ENDORSEMENT_STATUS_APPROVED',
          ])
        )[0].n as number,
      (n) => n === mine.length,
      'all approved',
    );
    const [sample] = await sql('select uhid from endorsements where id = ?', [mine[0]]);
    expect(sample.uhid).to.equal(`UH-${mine[0]!.slice(-6)}`);
    const [untouched] = await sql('select status from endorsements where id = ?', [theirs]);
    expect(untouched.status).to.equal(SENT);

    const again = await post(insurer.token(), { decisions });
    expect(again.status).to.equal(200);
    const second = again.body.payload.results as { result: string; detail: string }[];
    expect(second[250]).to.deep.include({ result: 'refused', detail: 'not found' });
    expect(second.filter((_, i) => i !== 250).every((r) => r.result === 'duplicate')).to.equal(true);
  });

  it('an unknown or malformed id is answered exactly like another insurer’s; another outcome is refused', async () => {
    const [id] = await endorsements(world, 1);
    await sentToInsurer([id!]);
    const res = await post(insurer.token(), {
      decisions: [
        { endorsement_id: 'end_doesnotexist000000000', decision: 'APPROVED' },
        { endorsement_id: 'not-an-id', decision: 'REJECTED', rejection_reason: 'x' },
        { endorsement_id: id, decision: 'REJECTED', rejection_reason: 'Pre-existing condition' },
        { endorsement_id: id, decision: 'APPROVED' },
        { endorsement_id: id, decision: 'REJECTED' },
      ],
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payload.results).to.deep.equal([
      { endorsement_id: 'end_doesnotexist000000000', result: 'refused', detail: 'not found' },
      { endorsement_id: 'not-an-id', result: 'refused', detail: 'not found' },
      { endorsement_id: id, result: 'accepted', detail: 'REJECTED recorded' },
      { endorsement_id: id, result: 'refused', detail: 'already decided with another outcome: REJECTED' },
      { endorsement_id: id, result: 'duplicate', detail: 'already REJECTED' },
    ]);
  });

  it('refuses an item whose UHID, member id or reason breaks the text rules, naming why; the rest of the call goes on', async () => {
    const [id] = await endorsements(world, 1);
    await sentToInsurer([id!]);
    const refused = (detail: string) => ({ endorsement_id: id, result: 'refused', detail });
    const res = await post(insurer.token(), {
      decisions: [
        { endorsement_id: id, decision: 'APPROVED', uhid: '=1+1' },
        { endorsement_id: id, decision: 'APPROVED', uhid: 'UH\u202e1' },
        { endorsement_id: id, decision: 'APPROVED', uhid: 'UH\u00071' },
        { endorsement_id: id, decision: 'APPROVED', uhid: 'UH-1', insurer_member_id: '+M1' },
        { endorsement_id: id, decision: 'REJECTED', rejection_reason: 'Age\u200f above limit' },
        { endorsement_id: 'end_doesnotexist000000000', decision: 'APPROVED', uhid: '=1+1' },
        { endorsement_id: id, decision: 'APPROVED', uhid: 'UH-OK', insurer_member_id: 'M-OK' },
      ],
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payload.results).to.deep.equal([
      refused('malformed decision: uhid must not start with =, +, - or @'),
      refused('malformed decision: uhid must not contain bidirectional formatting characters'),
      refused('malformed decision: uhid must not contain control characters'),
      refused('malformed decision: insurer_member_id must not start with =, +, - or @'),
      refused('malformed decision: rejection_reason must not contain bidirectional formatting characters'),
      { endorsement_id: 'end_doesnotexist000000000', result: 'refused', detail: 'not found' },
      { endorsement_id: id, result: 'accepted', detail: 'APPROVED recorded' },
    ]);
    // Only the well-formed decision counted: its ids are the ones stored and shown.
    await waitFor(
      async () => (await sql('select status, uhid from endorsements where id = ?', [id]))[0],
      (row) => row.status === 'ENDORSEMENT_STATUS_APPROVED',
      `${id} approved`,
    );
    const [row] = await sql('select uhid, insurer_member_id from endorsements where id = ?', [id]);
    expect(row).to.deep.equal({ uhid: 'UH-OK', insurer_member_id: 'M-OK' });
  });

  it('answers 400 for an empty list, more than 500 items or a malformed item', async () => {
    const item = { endorsement_id: 'end_x', decision: 'APPROVED' };
    const cases: [unknown, string][] = [
      [{ decisions: [] }, 'must contain at least one decision'],
      [{ decisions: Array.from({ length: 501 }, () => item) }, 'must contain at most 500 decisions'],
      [{ decisions: [{ ...item, decision: 'MAYBE' }] }, 'must be APPROVED or REJECTED'],
    ];
    for (const [body, detail] of cases) {
      const res = await post(insurer.token(), body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).to.equal(400);
      expect(res.body.type).to.equal('VALIDATION_ERROR');
      expect(res.body.detail).to.contain(detail);
    }
  });

  it('the admin command prints credentials whose token holds the insurer scopes only; a client never gets them', async () => {
    const [row] = await sql('select code from insurers where id = ?', [insurer.insurerId]);
    const made = await admin('insurer-client:create', row.code);
    expect(made).to.include({ insurer_id: insurer.insurerId, insurer_code: row.code });
    expect(made.client_id).to.match(/^ipr_/);
    expect(made.scopes).to.deep.equal(['insurer.decisions', 'insurer.endorsements']);

    const token = await world.api.post('/v1/auth/token', {
      body: { client_id: made.client_id, client_secret: made.client_secret, scopes: ['insurer.decisions'] },
    });
    expect(token.status, token.text).to.equal(200);
    const ok = await post(token.body.payload.access_token, {
      decisions: [{ endorsement_id: 'end_doesnotexist000000000', decision: 'APPROVED' }],
    });
    expect(ok.status, ok.text).to.equal(200);
    // The insurer's token is no client's: a client route answers 401.
    const policies = await world.api.get('/v1/policy/', { token: token.body.payload.access_token });
    expect(policies.status).to.equal(401);

    const wider = await world.api.post('/v1/auth/token', {
      body: { client_id: made.client_id, client_secret: made.client_secret, scopes: ['policy.get'] },
    });
    expect(wider.status).to.equal(403);
    expect(wider.body.detail).to.equal('scopes not allowed for this client: policy.get');

    const byClient = await world.api.post('/v1/auth/token', {
      body: {
        client_id: world.client.clientId,
        client_secret: world.client.clientSecret,
        scopes: ['insurer.decisions'],
      },
    });
    expect(byClient.status).to.equal(403);
    expect(byClient.body.detail).to.equal('scopes not allowed for this client: insurer.decisions');
    const clientToken = world.client.token();
    const refused = await post(clientToken, {
      decisions: [{ endorsement_id: 'end_x', decision: 'APPROVED' }],
    });
    // A client's token is no insurer principal's: 401, as any token that is not ours here.
    expect(refused.status).to.equal(401);
  });

  it("one credential decides the endorsements of two clients' policies with its insurer in one call", async () => {
    const [{ code }] = await sql('select code from insurers where id = ?', [insurer.insurerId]);
    // A second client whose policy names the same platform insurer (D12: one row per code).
    const reference = await makeReferenceData('', { code });
    const second = await makeWorld({ api: world.api, policy: { reference, cdBalance: '100000000.00' } });
    const other = await makeWorld({ api: world.api });
    const [mine, theirs, elsewhere] = await Promise.all([
      createEndorsement(world),
      createEndorsement(second),
      createEndorsement(other),
    ]);
    await sentToInsurer([mine, theirs, elsewhere]);
    const unknown = 'end_doesnotexist000000000';
    const res = await post(insurer.token(), {
      decisions: [mine, elsewhere, theirs, unknown].map((id) => ({
        endorsement_id: id,
        decision: 'APPROVED',
      })),
    });
    expect(res.status, res.text).to.equal(200);
    // Another insurer's endorsement and an unknown id are answered alike.
    expect(res.body.payload.results).to.deep.equal([
      { endorsement_id: mine, result: 'accepted', detail: 'APPROVED recorded' },
      { endorsement_id: elsewhere, result: 'refused', detail: 'not found' },
      { endorsement_id: theirs, result: 'accepted', detail: 'APPROVED recorded' },
      { endorsement_id: unknown, result: 'refused', detail: 'not found' },
    ]);
    const clients = await sql(
      `select e.client_id from endorsements e where e.id in (?) order by e.client_id`,
      [[mine, theirs]],
    );
    expect(new Set(clients.map((r) => r.client_id))).to.deep.equal(
      new Set([world.client.clientId, second.client.clientId]),
    );
  });

  it('insurer-client:create takes no --client: an insurer serves every client', async () => {
    const [{ code }] = await sql('select code from insurers where id = ?', [insurer.insurerId]);
    const failed = await admin('insurer-client:create', code, '--client', world.client.clientId).then(
      () => null,
      (err: { stderr: string }) => JSON.parse(err.stderr) as { error: string },
    );
    expect(failed?.error).to.equal('--client is gone: an insurer serves every client');
  });
});
