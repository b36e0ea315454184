import { expect } from 'chai';
import { routeToInsurer } from '../../data/insurer-exchange/cut-off.js';
import { SystemScope } from '../../data/scope.js';
import { prepared } from '../../data/sql.js';
import { stack } from '../support/stack.js';

/** The review's, the hold's and the census row's statements, prepared on the service's connections (db/prepared.ts). */
const PREPARED_STATEMENTS = [
  'cd_posting',
  'census_row_lock',
  'census_row_outcome',
  'endorsement_hold_mark',
  'endorsement_review_mark',
  'endorsement_route',
  'policy_cd_lock',
  'policy_cd_low_check',
  'policy_tallies_fold',
];

type Prepared = { name: string; plans: number };
const PREPARED_SQL = `select name, (generic_plans + custom_plans)::int as plans from pg_prepared_statements order by name`;

describe('data: statements prepared on the service’s connections', () => {
  it('every connection of the service’s two pools holds them, the owner’s none', async () => {
    const service = await stack().serviceOrm.em.getConnection().execute<Prepared[]>(PREPARED_SQL);
    expect(service.map((p) => p.name)).to.include.members(PREPARED_STATEMENTS);
    const system = await SystemScope.of(stack().serviceOrm.em).sql<Prepared>(PREPARED_SQL);
    expect(system.map((p) => p.name)).to.include.members(PREPARED_STATEMENTS);
    const owner = await stack().orm.em.getConnection().execute<Prepared[]>(PREPARED_SQL);
    expect(owner.map((p) => p.name)).to.not.include.members(['endorsement_route']);
  });

  it('a prepared statement runs by name on the service’s pool and answers as its text does elsewhere', async () => {
    const plansOf = (rows: Prepared[]) => rows.find((r) => r.name === 'endorsement_route')?.plans;
    // One transaction, one connection: its counters before and after the call are its own.
    await SystemScope.of(stack().serviceOrm.em).transaction(async (tx) => {
      const before = plansOf(await tx.sql<Prepared>(PREPARED_SQL));
      expect(await routeToInsurer(tx, 'end_none')).to.equal(undefined);
      expect(plansOf(await tx.sql<Prepared>(PREPARED_SQL))).to.equal(before! + 1);
    });
    // The owner's pool prepares nothing: the same call goes as text, with the same answer.
    expect(await routeToInsurer(SystemScope.of(stack().orm.em), 'end_none')).to.equal(undefined);
  });

  it('refuses a statement whose values do not match its placeholders, and a name given two texts', () => {
    const statement = prepared('test_two_values', 'select ?::text as a, ?::int as b');
    expect(statement(['x', 1])).to.deep.include({ params: ['x', 1], prepared: 'test_two_values' });
    expect(() => statement(['x'])).to.throw('prepared statement test_two_values: 2 values, 1 given');
    expect(() => prepared('test_two_values', 'select 1')).to.throw('registered twice');
  });
});
