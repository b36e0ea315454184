import { expect } from 'chai';
import { migrate, type Orm } from '../../db/orm.js';
import { ownDatabase } from '../support/own-database.js';

/**
 * The entities (db/entities) and the migrations describe one schema: on a database built by the
 * migrations alone, MikroORM's schema generator finds nothing to change. An entity that drifts from
 * the tables (a column, a type, a default, an index, a key) fails here.
 */
describe('entities against the migrated schema', function () {
  this.timeout(120_000);
  let orm: Orm;
  let drop: () => Promise<void>;

  before(async () => {
    ({ orm, drop } = await ownDatabase('schema'));
    await migrate(orm);
  });
  after(() => drop?.());

  const diff = async () => (await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false })).trim();

  it('finds no difference between the entities and a freshly migrated database', async () => {
    expect(await diff()).to.equal('');
  });

  it('sees a column the entities do not describe', async () => {
    const conn = orm.em.getConnection();
    await conn.execute('alter table clients add column drift_probe text');
    try {
      expect(await diff()).to.contain('drift_probe');
    } finally {
      await conn.execute('alter table clients drop column drift_probe');
    }
  });
});
