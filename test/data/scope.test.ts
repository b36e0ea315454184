import { expect } from 'chai';
import { systemClock, today } from '../../domain/clock.js';
import { cursorCodec } from '../../api/paging.js';
import { listAuditEvents, recordAudit } from '../../data/audit.js';
import { findCoverage, findHealthCard } from '../../data/coverage.js';
import { addDependent, listDependents } from '../../data/dependents/dependents.js';
import {
  bulkUpdateEmployees,
  createOrFindEmployee,
  findEmployeeProfile,
  updateEmployee,
} from '../../data/employees.js';
import { listPolicyMembers } from '../../data/members.js';
import { findPolicyDetail, listPolicies } from '../../data/policies.js';
import { MissingTenant, TenantScope } from '../../data/scope.js';
import { EmployeeSchema } from '../../db/entities/index.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeMember,
  makePolicy,
  sql,
} from '../support/factories.js';
import { stack } from '../support/stack.js';

const codec = cursorCodec('scope-test-cursor-secret-0123456789abcdef');
const page = { limit: 100 };
const DAY = '2026-06-01';

/** One client's rows: an employee with a dependent, covered on a policy, and an audit entry. */
async function tenantWithData() {
  const { clientId } = await makeClient();
  const policy = await makePolicy(clientId);
  const employee = await makeEmployee(clientId);
  const dependent = await makeDependent(clientId, employee.id);
  await makeMember(clientId, policy.id, employee);
  await makeMember(clientId, policy.id, employee, { dependentId: dependent.id });
  return { clientId, policy, employee, dependent };
}

describe('data: tenant scope (D1)', () => {
  describe('a repository without a client id cannot query tenant data', () => {
    for (const [label, id] of [
      ['undefined', undefined],
      ['null', null],
      ['an empty string', ''],
      ['an id of another kind', 'emp_0123456789abcdefghijkl'],
      ['a bare word', 'acme'],
      ['an overlong id', `cli_${'x'.repeat(80)}`],
    ] as const) {
      it(`refuses to make a scope for ${label}`, () => {
        expect(() => TenantScope.of(stack().orm.em, id)).to.throw(MissingTenant);
      });
    }

    it('fails an entity query through an EntityManager that names no tenant', async () => {
      const { employee } = await tenantWithData();
      const error = await stack()
        .orm.em.fork()
        .findOne(EmployeeSchema, { id: employee.id })
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(Error);
      // MikroORM refuses a filter without its parameters before the filter's own guard would.
      expect((error as Error).message).to.match(/filter 'tenant'|tenant filter used without a clientId/);
    });
  });

  describe('a scope for client A never returns client B’s rows', () => {
    let a: Awaited<ReturnType<typeof tenantWithData>>;
    let b: Awaited<ReturnType<typeof tenantWithData>>;
    const scopeA = () => TenantScope.of(stack().serviceOrm.em, a.clientId);

    before(async () => {
      [a, b] = await Promise.all([tenantWithData(), tenantWithData()]);
      for (const t of [a, b]) {
        await recordAudit(TenantScope.of(stack().serviceOrm.em, t.clientId), {
          clientId: t.clientId,
          entity: 'employee',
          entityId: t.employee.id,
          action: 'update',
          changedFields: ['name'],
          actorTokenId: null,
        });
      }
    });

    it('reads A’s employee and answers B’s as unknown, also through entity queries', async () => {
      expect((await findEmployeeProfile(scopeA(), a.employee.id))?.clientId).to.equal(a.clientId);
      expect(await findEmployeeProfile(scopeA(), b.employee.id)).to.equal(null);
      expect(await scopeA().entities((em) => em.findOne(EmployeeSchema, { id: b.employee.id }))).to.equal(
        null,
      );
      const seen = await scopeA().entities((em) =>
        em.find(EmployeeSchema, { id: { $in: [a.employee.id, b.employee.id] } }),
      );
      expect(seen.map((e) => e.id)).to.deep.equal([a.employee.id]);
    });

    it('lists A’s dependents and none of B’s employee', async () => {
      expect((await listDependents(scopeA(), a.employee.id))?.map((d) => d.id)).to.deep.equal([
        a.dependent.id,
      ]);
      expect(await listDependents(scopeA(), b.employee.id)).to.equal(null);
    });

    it('lists and reads A’s policies and members only', async () => {
      const policies = await listPolicies(scopeA(), codec, {}, page);
      expect(policies.rows.map((p) => p.id)).to.deep.equal([a.policy.id]);
      expect(policies.total_count).to.equal(1);
      expect((await findPolicyDetail(scopeA(), a.policy.id))?.id).to.equal(a.policy.id);
      expect(await findPolicyDetail(scopeA(), b.policy.id)).to.equal(null);

      const mine = await listPolicyMembers(scopeA(), codec, a.policy.id, { today: today(systemClock) }, page);
      expect(mine.policyFound).to.equal(true);
      expect(mine.page.rows.every((m) => m.client_id === a.clientId)).to.equal(true);
      expect(mine.page.rows).to.have.length(2);
      const theirs = await listPolicyMembers(
        scopeA(),
        codec,
        b.policy.id,
        { today: today(systemClock) },
        page,
      );
      expect(theirs.policyFound).to.equal(false);
      expect(theirs.page.rows).to.deep.equal([]);
    });

    it('answers coverage and health cards of A’s employee only', async () => {
      expect((await findCoverage(scopeA(), a.employee.id, DAY)).entries).to.have.length(1);
      expect(await findCoverage(scopeA(), b.employee.id, DAY)).to.deep.equal({
        employeeFound: false,
        entries: [],
      });
      expect(await findHealthCard(scopeA(), a.employee.id, a.policy.id, DAY)).to.not.equal(null);
      expect(await findHealthCard(scopeA(), b.employee.id, b.policy.id, DAY)).to.equal(null);
    });

    it('shows A’s audit trail only, whatever entity_id is asked for', async () => {
      const all = await listAuditEvents(scopeA(), codec, { entity: 'employee' }, page);
      expect(all.rows.length).to.be.greaterThan(0);
      expect(all.rows.every((r) => r.client_id === a.clientId)).to.equal(true);
      const asked = await listAuditEvents(
        scopeA(),
        codec,
        { entity: 'employee', entityId: b.employee.id },
        page,
      );
      expect(asked.rows).to.deep.equal([]);
    });

    it('changes nothing of B’s through A’s writes', async () => {
      const before = await sql('select name, last_active_date from employees where id = ?', [b.employee.id]);
      const update = await updateEmployee(scopeA(), b.employee.id, { name: 'Taken Over' }, { today: DAY });
      expect(update).to.equal(null);
      const known = await bulkUpdateEmployees(scopeA(), [{ employeeId: b.employee.id, lastActiveDate: DAY }]);
      expect([...known]).to.deep.equal([]);
      const added = await addDependent(scopeA(), b.employee.id, {
        name: 'Intruder',
        relationship: 'CHILD',
        dateOfBirth: '2020-01-01',
        gender: 'MALE',
      });
      expect(added).to.equal(null);
      expect(
        await sql('select name, last_active_date from employees where id = ?', [b.employee.id]),
      ).to.deep.equal(before);
      expect(await sql('select id from dependents where employee_id = ?', [b.employee.id])).to.deep.equal([
        { id: b.dependent.id },
      ]);
    });

    it('creates A’s employee under A even with B’s employee code and email', async () => {
      const { id, created } = await createOrFindEmployee(scopeA(), { ...b.employee, name: 'Namesake' });
      expect(created).to.equal(true);
      expect(id).to.not.equal(b.employee.id);
      const [row] = await sql('select client_id from employees where id = ?', [id]);
      expect(row.client_id).to.equal(a.clientId);
    });

    it('refuses to write an audit entry of B through A’s scope', async () => {
      const entry = {
        clientId: b.clientId,
        entity: 'employee',
        entityId: b.employee.id,
        action: 'update',
        changedFields: ['name'],
        actorTokenId: null,
      };
      const trailOfB = () => sql('select id from audit_events where client_id = ?', [b.clientId]);
      const before = await trailOfB();
      const error = await recordAudit(scopeA(), entry).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(Error);
      expect(await trailOfB()).to.deep.equal(before);
    });
  });
});
