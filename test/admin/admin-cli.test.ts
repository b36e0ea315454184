import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { verifySecret } from '../../domain/credentials.js';
import { makeClient, makePolicy, sql } from '../support/factories.js';
import { stack } from '../support/stack.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Runs `npm run -s admin -- …` the way an operator would, against this run's database. */
async function admin(...args: string[]): Promise<{ code: number; out: any; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, ...stack().databaseEnv },
      },
    );
    return { code: 0, out: JSON.parse(stdout), err: stderr };
  } catch (e) {
    const failure = e as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: null, err: (JSON.parse(failure.stderr) as { error: string }).error };
  }
}

describe('admin command', function () {
  // Each command is a process of its own (tsx compiles on start): tens of seconds on a busy machine.
  this.timeout(240_000);
  let clientId: string;

  it('creates a client and prints its secret once; only a scrypt hash is stored', async () => {
    const res = await admin('client:create', '--name', 'Acme Corp', '--scopes', 'POLICY_ALL,employee.get');
    expect(res.code).to.equal(0);
    expect(res.out.client_id).to.match(/^cli_/);
    clientId = res.out.client_id;
    const [row] = await sql('select secret_hash, allowed_scopes, secret_version from clients where id = ?', [
      clientId,
    ]);
    expect(row.secret_hash).to.match(/^scrypt\$/);
    expect(row.secret_hash).not.to.contain(res.out.client_secret);
    expect(await verifySecret(res.out.client_secret, row.secret_hash)).to.equal(true);
    expect(row.allowed_scopes).to.deep.equal(['policy.all', 'employee.get']);
  });

  it('refuses an unknown scope name', async () => {
    const res = await admin('client:create', '--name', 'X', '--scopes', 'policy.delete');
    expect(res.code).to.equal(2);
    expect(res.err).to.contain('unknown scope "policy.delete"');
  });

  it('loads the demo file, and loading it again changes nothing', async () => {
    const partners = await admin('load', 'data/partners.yaml');
    expect(partners.code, partners.err).to.equal(0);
    const first = await admin('load', 'data/demo.yaml', '--client', clientId);
    expect(first.code).to.equal(0);
    expect(Object.keys(first.out.policies)).to.have.length(6);
    expect(Object.keys(first.out.employees)).to.have.length(12);
    const count = async () =>
      (
        await sql(
          `select (select count(*) from policies where client_id = ?) as p, (select count(*) from employees where client_id = ?) as e,
                (select count(*) from dependents where client_id = ?) as d`,
          [clientId, clientId, clientId],
        )
      )[0];
    const before = await count();
    expect(Number(before.d)).to.be.greaterThan(0);
    const second = await admin('load', 'data/demo.yaml', '--client', clientId);
    expect(second.out).to.deep.equal(first.out);
    expect(await count()).to.deep.equal(before);
    const statuses = await sql(
      'select status, count(*) as n from policies where client_id = ? group by status order by status',
      [clientId],
    );
    expect(statuses.map((r) => [r.status, Number(r.n)])).to.deep.equal([
      ['POLICY_STATUS_ACTIVE', 5],
      ['POLICY_STATUS_INACTIVE', 1],
    ]);
    // D14: one insurer of each adapter, each with a group-health policy active today.
    const adapters = await sql(
      `select distinct i.adapter from policies p join insurers i on i.id = p.insurer_id
         join products pr on pr.id = p.product_id
        where p.client_id = ? and p.status = 'POLICY_STATUS_ACTIVE' and pr.category = 'Group Health'
          and p.start_date <= current_date and p.end_date >= current_date
        order by i.adapter`,
      [clientId],
    );
    expect(adapters.map((r) => r.adapter)).to.deep.equal(['api', 'file', 'manual', 'simulated']);
  });

  it("loads a second client's file that names the partners by code only: both clients' policies share them", async () => {
    const other = await makeClient();
    const res = await admin('load', 'data/demo.yaml', '--client', other.clientId);
    expect(res.code, res.err).to.equal(0);
    const shared = await sql(
      `select p.client_id, p.insurer_id, p.product_id, p.tpa_id from policies p
        where p.policy_number = 'STAR/GH/2026/000123' and p.client_id in (?, ?) order by p.client_id = ?`,
      [clientId, other.clientId, other.clientId],
    );
    expect(shared).to.have.length(2);
    const [mine, theirs] = shared;
    expect({ ...theirs, client_id: undefined }).to.deep.equal({ ...mine, client_id: undefined });
    const [stars] = await sql("select count(*)::int as n from insurers where code = 'STAR'");
    expect(stars.n).to.equal(1);
  });

  it("takes a client's file repeating a partner unchanged; refuses a changed one naming it, writing nothing", async () => {
    const same = await admin('load', 'test/admin/fixtures/repeat-partner-same.yaml', '--client', clientId);
    expect(same.code, same.err).to.equal(0);
    const [star] = await sql("select id, name from insurers where code = 'STAR'");
    expect(same.out.insurers).to.deep.equal({ STAR: star.id });

    const changed = await admin(
      'load',
      'test/admin/fixtures/repeat-partner-changed.yaml',
      '--client',
      clientId,
    );
    expect(changed.code).to.equal(2);
    expect(changed.err).to.equal(
      'insurer "STAR" is loaded with other values (name); a client\'s file may repeat a partner only ' +
        'unchanged: change it for every client with a partners load',
    );
    const [after] = await sql("select name from insurers where code = 'STAR'");
    expect(after.name).to.equal(star.name);
    expect(await sql("select 1 from policies where policy_number = 'REPEAT/CHANGED/1'")).to.have.length(0);
  });

  it('refuses a file with policies or employees without --client: a partners file holds partners only', async () => {
    const res = await admin('load', 'data/demo.yaml');
    expect(res.code).to.equal(2);
    expect(res.err).to.equal('policies and employees belong to a client: add --client CLIENT_ID');
  });

  it('rejects an invalid file naming the field, and writes nothing', async () => {
    const res = await admin('load', 'test/admin/fixtures/bad-policy.json', '--client', clientId);
    expect(res.code).to.equal(2);
    expect(res.err).to.match(/policies\.0\.coverage_type/);
    const rows = await sql("select 1 from policies where policy_number = 'BAD/1'");
    expect(rows).to.have.length(0);
  });

  it('loads an insurer of each available adapter with its settings, defaults filled in', async () => {
    const res = await admin('load', 'test/admin/fixtures/insurer-adapters.yaml', '--client', clientId);
    expect(res.code, res.err).to.equal(0);
    const rows = await sql(
      `select code, adapter, adapter_settings from insurers where code in ('SIMU', 'MANU', 'APIX') order by code`,
    );
    expect(rows.map((r) => [r.code, r.adapter, r.adapter_settings])).to.deep.equal([
      [
        'APIX',
        'api',
        {
          base_url: 'https://api.api-insurer.example.com/v1',
          signing_secret_env: 'APIX_SIGNING_SECRET',
          timeout_ms: 10000,
          sla_days: 14,
        },
      ],
      ['MANU', 'manual', { sla_days: 21 }],
      ['SIMU', 'simulated', { sla_days: 14 }],
    ]);
  });

  it('refuses a bad adapter setting naming its field, and writes nothing of the file', async () => {
    const res = await admin('load', 'test/admin/fixtures/bad-insurer-settings.yaml', '--client', clientId);
    expect(res.code).to.equal(2);
    expect(res.err).to.equal(
      'invalid file: insurers.1.adapter_settings.base_url: must be https (http only for a loopback host)',
    );
    const rows = await sql("select code from insurers where code in ('GOODINS', 'BADAPI')");
    expect(rows).to.have.length(0);
  });

  it('rotates a secret: the version moves and the new secret verifies', async () => {
    const res = await admin('client:rotate-secret', clientId);
    expect(res.code).to.equal(0);
    const [row] = await sql('select secret_hash, secret_version from clients where id = ?', [clientId]);
    expect(row.secret_version).to.equal(2);
    expect(await verifySecret(res.out.client_secret, row.secret_hash)).to.equal(true);
    expect((await admin('client:rotate-secret', 'cli_unknown')).err).to.contain('no client cli_unknown');
  });

  it('lists clients without secrets, revokes one at once and rotates it back only with --reinstate', async function () {
    this.timeout(120_000); // five runs of the command
    const { clientId: other } = await makeClient();
    const listed = await admin('client:list');
    expect(listed.code, listed.err).to.equal(0);
    const mine = listed.out.clients.find((c: { client_id: string }) => c.client_id === clientId);
    expect(mine).to.deep.include({
      name: 'Acme Corp',
      scopes: ['policy.all', 'employee.get'],
      secret_version: 2,
      revoked_at: null,
      tokens_last_hour: 0,
    });
    expect(Object.keys(mine)).to.have.members([
      'client_id',
      'name',
      'scopes',
      'secret_version',
      'exit_mode',
      'created_at',
      'revoked_at',
      'tokens_last_hour',
    ]);

    const revoked = await admin('client:revoke', other);
    expect(revoked.code, revoked.err).to.equal(0);
    expect(revoked.out.revoked_at).to.match(/^\d{4}-\d\d-\d\dT/);
    const rotate = await admin('client:rotate', other);
    expect(rotate.code).to.equal(2);
    expect(rotate.err).to.equal(
      `client ${other} is revoked; client:rotate ${other} --reinstate issues a new secret and lifts the revocation`,
    );
    const back = await admin('client:rotate', other, '--reinstate');
    expect(back.code, back.err).to.equal(0);
    expect(back.out).to.include({ client_id: other, reinstated: true });
    const [row] = await sql('select secret_hash, revoked_at from clients where id = ?', [other]);
    expect(row.revoked_at).to.equal(null);
    expect(await verifySecret(back.out.client_secret, row.secret_hash)).to.equal(true);
    expect((await admin('client:revoke', 'cli_unknown')).err).to.equal('no client cli_unknown');
  });

  it('tops up a CD account in rupees with paise exact, once per reference, and refuses bad amounts', async function () {
    this.timeout(240_000); // eight runs of the command
    const { clientId: owner } = await makeClient();
    const policy = await makePolicy(owner, { cdBalance: '100.00' });
    const first = await admin('cd:topup', policy.id, '1234.56', '--reference', 'NEFT-77');
    expect(first.code, first.err).to.equal(0);
    expect(first.out).to.include({
      duplicate: false,
      amount: '1234.56',
      cd_balance: '1334.56',
      cd_available_balance: '1334.56',
    });
    const again = await admin('cd:topup', policy.id, '1234.56', '--reference', 'NEFT-77');
    expect(again.out).to.include({ duplicate: true, cd_balance: '1334.56' });
    const reused = await admin('cd:topup', policy.id, '5', '--reference', 'NEFT-77');
    expect([reused.code, reused.err]).to.deep.equal([
      2,
      'reference NEFT-77 is already recorded as top_up 1234.56',
    ]);
    for (const [amount, says] of [
      ['1.234', 'more than two decimals'],
      ['-5', 'must be positive'],
      ['12abc', 'not an amount in rupees'],
    ]) {
      const res = await admin('cd:topup', policy.id, amount!, '--reference', 'X');
      expect([res.code, res.err], amount).to.satisfy(
        ([code, err]: [number, string]) => code === 2 && err.includes(says!),
      );
    }
    const missing = await admin('cd:topup', policy.id, '5');
    expect(missing.err).to.contain('--reference is required');
    const [row] = await sql('select cd_balance::text as b from policies where id = ?', [policy.id]);
    expect(row.b).to.equal('1334.56');
  });

  it("sets a policy's low-balance threshold from the load file and the command, warning once on a crossing", async function () {
    this.timeout(120_000); // four runs of the command
    const { clientId: owner } = await makeClient();
    const loaded = await admin('load', 'test/admin/fixtures/cd-threshold.json', '--client', owner);
    expect(loaded.code, loaded.err).to.equal(0);
    const policyId = loaded.out.policies['THR/1'] as string;
    const state = async () =>
      (
        await sql(
          `select cd_low_threshold::text as own, cd_low as low,
                  (select count(*)::int from webhook_events where type = 'policy.cd_balance_low'
                     and payload->>'policy_id' = p.id) as warnings
             from policies p where id = ?`,
          [policyId],
        )
      )[0];
    expect(await state()).to.deep.equal({ own: '2500.00', low: false, warnings: 0 });

    // Back to the default, 10 % of the gross premium (₹11,800): ₹5,000 is below it, once.
    const back = await admin('cd:threshold', policyId, 'default');
    expect(back.out).to.deep.equal({
      policy_id: policyId,
      cd_low_threshold: '11800.00',
      default: true,
      cd_low: true,
    });
    const own = await admin('cd:threshold', policyId, '4999.99');
    expect(own.out).to.deep.equal({
      policy_id: policyId,
      cd_low_threshold: '4999.99',
      default: false,
      cd_low: false,
    });
    expect(await state()).to.deep.equal({ own: '4999.99', low: false, warnings: 1 });

    const bad = await admin('cd:threshold', policyId, '12.345');
    expect([bad.code, bad.err]).to.satisfy(
      ([c, e]: [number, string]) => c === 2 && e.includes('two decimals'),
    );
    const unknown = await admin('cd:threshold', 'pol_unknown', '10');
    expect([unknown.code, unknown.err]).to.deep.equal([2, 'no policy pol_unknown']);
  });
});
