import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { recordAudit } from '../../data/audit.js';
import { bulkUpdateEmployees, createOrFindEmployee, updateEmployee } from '../../data/employees.js';
import { TenantScope } from '../../data/scope.js';
import type { NewEmployee } from '../../domain/employees.js';
import { makeClient, makeEmployee, sql } from '../support/factories.js';
import { stack } from '../support/stack.js';

const tenant = (clientId: string) => TenantScope.of(stack().serviceOrm.em, clientId);

function person(o: Partial<NewEmployee> = {}): NewEmployee {
  const t = randomBytes(4).toString('hex');
  return {
    employeeCode: `E-${t}`,
    name: 'Dev Shah',
    email: `dev.${t}@example.com`,
    phoneNumber: '9800000000',
    dateOfBirth: '1985-01-01',
    gender: 'MALE',
    status: 'ACTIVE',
    ...o,
  };
}

describe('data: employees', () => {
  let clientId: string;
  let otherClientId: string;

  before(async () => {
    [{ clientId }, { clientId: otherClientId }] = await Promise.all([makeClient(), makeClient()]);
  });

  describe('createOrFindEmployee', () => {
    it('settles racing creates with one employee_id and different emails on one row, leaving no stray user', async () => {
      const base = person();
      const inputs = Array.from({ length: 8 }, (_, i) => ({ ...base, email: `racer${i}.${base.email}` }));
      const results = await Promise.all(inputs.map((input) => createOrFindEmployee(tenant(clientId), input)));

      expect(new Set(results.map((r) => r.id)).size).to.equal(1);
      expect(results.filter((r) => r.created)).to.have.length(1);
      const users = await sql(
        'select count(*)::int as n from users where client_id = ? and email_key like ?',
        [clientId, `racer%.${base.email}`],
      );
      expect(users[0].n).to.equal(1);
    });

    it('settles racing creates with one email and different employee_ids on one row', async () => {
      const base = person();
      const inputs = Array.from({ length: 8 }, (_, i) => ({
        ...base,
        employeeCode: `${base.employeeCode}-${i}`,
      }));
      const results = await Promise.all(inputs.map((input) => createOrFindEmployee(tenant(clientId), input)));

      expect(new Set(results.map((r) => r.id)).size).to.equal(1);
      const rows = await sql(
        'select count(*)::int as n from employees where client_id = ? and employee_code like ?',
        [clientId, `${base.employeeCode}-%`],
      );
      expect(rows[0].n).to.equal(1);
    });

    it('records an admin-made create with no token id', async () => {
      const { id } = await createOrFindEmployee(tenant(clientId), person());
      const audit = await sql('select action, actor_token_id from audit_events where entity_id = ?', [id]);
      expect(audit).to.deep.equal([{ action: 'create', actor_token_id: null }]);
    });
  });

  describe('recordAudit', () => {
    it('writes several entries in one statement with their own field lists', async () => {
      const id = `emp_audit_${randomBytes(4).toString('hex')}`;
      await recordAudit(tenant(clientId), [
        {
          clientId,
          entity: 'employee',
          entityId: id,
          action: 'a',
          changedFields: ['x', 'y'],
          actorTokenId: 't1',
        },
        { clientId, entity: 'employee', entityId: id, action: 'b', changedFields: [], actorTokenId: null },
      ]);
      const rows = await sql(
        'select action, changed_fields, actor_token_id from audit_events where entity_id = ? order by id',
        [id],
      );
      expect(rows).to.deep.equal([
        { action: 'a', changed_fields: ['x', 'y'], actor_token_id: 't1' },
        { action: 'b', changed_fields: [], actor_token_id: null },
      ]);
    });

    it('commits or rolls back with the caller’s transaction', async () => {
      const id = `emp_audit_${randomBytes(4).toString('hex')}`;
      await tenant(clientId)
        .transaction(async (tx) => {
          await recordAudit(tx, {
            clientId,
            entity: 'employee',
            entityId: id,
            action: 'update',
            changedFields: ['name'],
            actorTokenId: null,
          });
          throw new Error('roll back');
        })
        .catch(() => undefined);
      const rows = await sql('select 1 from audit_events where entity_id = ?', [id]);
      expect(rows).to.deep.equal([]);
    });
  });

  describe('updateEmployee', () => {
    it('answers null for another client’s employee and leaves it alone', async () => {
      const theirs = await makeEmployee(otherClientId, { name: 'Untouched' });
      const result = await updateEmployee(
        tenant(clientId),
        theirs.id,
        { name: 'Changed' },
        { today: '2026-01-01' },
      );
      expect(result).to.equal(null);
      const [row] = await sql('select name from employees where id = ?', [theirs.id]);
      expect(row.name).to.equal('Untouched');
    });

    it('reports the stored columns that changed, date_of_leaving with a status change', async () => {
      const e = await makeEmployee(clientId);
      const result = await updateEmployee(
        tenant(clientId),
        e.id,
        { status: 'INACTIVE', phoneNumber: e.phoneNumber, department: 'Sales' },
        { today: '2026-03-15' },
      );
      expect(result!.changedFields).to.have.members(['status', 'date_of_leaving', 'department']);
    });
  });

  describe('bulkUpdateEmployees', () => {
    it('answers only the client’s own ids as known', async () => {
      const [mine, theirs] = [await makeEmployee(clientId), await makeEmployee(otherClientId)];
      const known = await bulkUpdateEmployees(tenant(clientId), [
        { employeeId: mine.id, lastActiveDate: '2026-02-02' },
        { employeeId: theirs.id, lastActiveDate: '2026-02-02' },
      ]);
      expect([...known]).to.deep.equal([mine.id]);
      const rows = await sql('select id, last_active_date from employees where id in (?) order by id', [
        [mine.id, theirs.id],
      ]);
      expect(rows.find((r) => r.id === theirs.id).last_active_date).to.equal(null);
      expect(rows.find((r) => r.id === mine.id).last_active_date).to.equal('2026-02-02');
    });

    it('audits each changed row once; a date already in place, or a repeat of the request, records nothing', async () => {
      const [x, y] = [await makeEmployee(clientId), await makeEmployee(clientId)];
      const items = [
        { employeeId: x.id, lastActiveDate: '2026-03-01' },
        { employeeId: y.id, lastActiveDate: '2026-03-02' },
      ];
      await bulkUpdateEmployees(tenant(clientId), [items[0]!]);
      await bulkUpdateEmployees(tenant(clientId), items);
      await bulkUpdateEmployees(tenant(clientId), items);
      const audits = await sql(
        `select entity_id, changed_fields from audit_events
          where action = 'bulk_update' and entity_id in (?) order by id`,
        [[x.id, y.id]],
      );
      expect(audits.map((r) => [r.entity_id, r.changed_fields])).to.deep.equal([
        [x.id, ['last_active_date']],
        [y.id, ['last_active_date']],
      ]);
    });

    it('applies an exit and a last-active date of the same request together', async () => {
      const [x, y] = [await makeEmployee(clientId), await makeEmployee(clientId)];
      const known = await bulkUpdateEmployees(
        tenant(clientId),
        [
          { employeeId: x.id, lastActiveDate: '2026-04-01', status: 'INACTIVE' },
          { employeeId: y.id, lastActiveDate: '2026-04-02' },
        ],
        undefined,
        '2026-04-03',
      );
      expect([...known].sort()).to.deep.equal([x.id, y.id].sort());
      const rows = await sql(
        `select id, status, date_of_leaving::text as left_on, last_active_date from employees
          where id in (?) order by id`,
        [[x.id, y.id]],
      );
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      expect(byId[x.id]).to.include({
        status: 'INACTIVE',
        left_on: '2026-04-03',
        last_active_date: '2026-04-01',
      });
      expect(byId[y.id]).to.include({ status: 'ACTIVE', left_on: null, last_active_date: '2026-04-02' });
    });
  });
});
