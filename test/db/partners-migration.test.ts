import { expect } from 'chai';
import type { Orm } from '../../db/orm.js';
import { ownDatabase, type OwnSql } from '../support/own-database.js';

/**
 * Migration 0024 on a database that holds what the per-client model left: two clients, each with its
 * own copy of one insurer, TPA and product, a policy on each, and an insurer principal bound to the
 * second client's copy.
 */
describe('migration 0024: per-client partner copies folded into one row per code', function () {
  this.timeout(120_000);
  let orm: Orm;
  let drop: () => Promise<void>;
  let sql: OwnSql;
  const applied = async () =>
    (await sql('select name from mikro_orm_migrations order by id')).map((r: { name: string }) => r.name);

  before(async () => {
    ({ orm, sql, drop } = await ownDatabase('partners', 1));
    await orm.getMigrator().up({ to: '0023-endorsement-batch' });
    for (const client of ['cli_a', 'cli_b']) {
      await sql(
        `insert into clients (id, name, secret_hash, allowed_scopes) values (?, ?, 'scrypt$x', '{policy.all}')`,
        [client, `Client ${client}`],
      );
      await sql(
        `insert into insurers (id, client_id, code, name, logo_url, adapter, adapter_settings)
         values (?, ?, 'NIVA', 'Niva Bupa', 'https://logo.example.com/n.png', 'manual', '{"sla_days": 10}')`,
        [`ins_niva_${client}`, client],
      );
      await sql(
        `insert into insurers (id, client_id, code, name, logo_url, adapter, adapter_settings)
         values (?, ?, 'CARE', 'Care Health', 'https://logo.example.com/c.png', 'file', ?::jsonb)`,
        [
          `ins_care_${client}`,
          client,
          JSON.stringify({ template: 'generic', cut_off_time: client === 'cli_a' ? '17:00' : '18:00' }),
        ],
      );
      await sql(`insert into tpas (id, client_id, code, name) values (?, ?, 'MEDI', ?)`, [
        `tpa_medi_${client}`,
        client,
        client === 'cli_a' ? 'Medi Assist' : 'Medi Assist TPA',
      ]);
      await sql(
        `insert into products (id, client_id, insurer_id, code, name, category)
         values (?, ?, ?, 'NIVA-GH', 'Niva Group Health', 'Group Health')`,
        [`prd_niva_${client}`, client, `ins_niva_${client}`],
      );
      await sql(
        `insert into policies (id, client_id, policy_number, insurer_id, product_id, tpa_id, net_premium,
           gross_premium, coverage_type, type, status, start_date, end_date, slabs, default_sum_insured)
         values (?, ?, 'NIVA/1', ?, ?, ?, 1000, 1180, 'COVERAGE_TYPE_E', 'POLICY_TYPE_FAMILY_FLOATER',
           'POLICY_STATUS_ACTIVE', '2026-04-01', '2027-03-31', '[]', 300000)`,
        [`pol_${client}`, client, `ins_niva_${client}`, `prd_niva_${client}`, `tpa_medi_${client}`],
      );
    }
    await sql(
      `insert into insurer_principals (id, insurer_id, secret_hash) values ('ipr_b', 'ins_niva_cli_b', 'x')`,
    );
  });
  after(() => drop?.());

  it('refuses copies that differ, naming each code and the settings that differ, and changes nothing', async () => {
    const failure = await orm
      .getMigrator()
      .up()
      .then(
        () => null,
        (e: Error) => e,
      );
    expect(failure?.message).to.contain(
      'partners differ between clients: insurer CARE (adapter_settings); tpa MEDI (name)',
    );
    expect(await applied()).to.not.include('0024-platform-partners');
    const [counts] = await sql(
      `select (select count(*)::int from insurers) as insurers, (select count(*)::int from tpas) as tpas,
              (select count(*)::int from products) as products,
              (select count(*)::int from information_schema.columns
                where table_name = 'insurers' and column_name = 'client_id') as client_column`,
    );
    expect(counts).to.deep.equal({ insurers: 4, tpas: 2, products: 2, client_column: 1 });
    const [policy] = await sql(`select insurer_id, tpa_id from policies where id = 'pol_cli_b'`);
    expect(policy).to.deep.equal({ insurer_id: 'ins_niva_cli_b', tpa_id: 'tpa_medi_cli_b' });
  });

  it('folds identical copies into the first client’s row and re-points policies, products and principals', async () => {
    // The operator makes the copies identical, then migrates again.
    await sql(
      `update insurers set adapter_settings = adapter_settings || '{"cut_off_time": "17:00"}' where code = 'CARE'`,
    );
    await sql(`update tpas set name = 'Medi Assist' where code = 'MEDI'`);
    await orm.getMigrator().up();
    expect(await applied()).to.include('0024-platform-partners');

    expect(await sql('select id, code from insurers order by code')).to.deep.equal([
      { id: 'ins_care_cli_a', code: 'CARE' },
      { id: 'ins_niva_cli_a', code: 'NIVA' },
    ]);
    expect(await sql('select id, insurer_id from products')).to.deep.equal([
      { id: 'prd_niva_cli_a', insurer_id: 'ins_niva_cli_a' },
    ]);
    expect(await sql('select id from tpas')).to.deep.equal([{ id: 'tpa_medi_cli_a' }]);
    expect(await sql('select id, insurer_id, product_id, tpa_id from policies order by id')).to.deep.equal([
      {
        id: 'pol_cli_a',
        insurer_id: 'ins_niva_cli_a',
        product_id: 'prd_niva_cli_a',
        tpa_id: 'tpa_medi_cli_a',
      },
      {
        id: 'pol_cli_b',
        insurer_id: 'ins_niva_cli_a',
        product_id: 'prd_niva_cli_a',
        tpa_id: 'tpa_medi_cli_a',
      },
    ]);
    expect(await sql(`select insurer_id from insurer_principals where id = 'ipr_b'`)).to.deep.equal([
      { insurer_id: 'ins_niva_cli_a' },
    ]);
    const clientColumns = await sql(
      `select table_name from information_schema.columns
        where table_name in ('insurers', 'tpas', 'products') and column_name = 'client_id'`,
    );
    expect(clientColumns).to.deep.equal([]);
    // One row per code from now on.
    const duplicate = await sql(
      `insert into tpas (id, code, name) values ('tpa_again', 'MEDI', 'Medi Assist')`,
    ).catch((e: Error) => e);
    expect(String(duplicate)).to.match(/tpas_code_key/);
  });
});
