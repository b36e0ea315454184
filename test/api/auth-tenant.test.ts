import { expect } from 'chai';
import { EmployeeSchema } from '../../db/entities/index.js';
import { makeClient, makeEmployee } from '../support/factories.js';
import { stack } from '../support/stack.js';
import { startProbeApi, TENANT_PROBE_PATH, type ProbeApi } from './auth-fixtures.js';

describe('tenant isolation (D1): the token’s client is the only tenant a handler can see', () => {
  let api: ProbeApi;
  before(async () => {
    api = await startProbeApi();
  });
  after(() => api.close());

  it('filters every query of the request’s EntityManager by the token’s client', async () => {
    const [a, b] = await Promise.all([makeClient(), makeClient()]);
    const aEmployees = await Promise.all([makeEmployee(a.clientId), makeEmployee(a.clientId)]);
    const bEmployees = [await makeEmployee(b.clientId)];

    for (const [client, own] of [
      [a, aEmployees],
      [b, bEmployees],
    ] as const) {
      const res = await api.http.get(TENANT_PROBE_PATH, { token: client.token(['employee.get']) });
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.have.deep.members(
        own.map((e) => ({ id: e.id, client_id: client.clientId })),
      );
    }
  });

  it('refuses a tenant-owned query that was not given a client', async () => {
    const em = stack().orm.em.fork();
    let failure: unknown;
    await em.find(EmployeeSchema, {}).catch((err: unknown) => (failure = err));
    // MikroORM refuses a filter without arguments; the filter's own guard catches an empty client id.
    expect(String(failure)).to.match(/No arguments provided for filter 'tenant'|tenant filter used without/);
  });
});
