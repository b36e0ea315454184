import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { initOrm } from '../../db/orm.js';
import { freePort } from '../../infra/ports.js';
import { client } from '../support/http.js';
import { stack } from '../support/stack.js';

describe('health and readiness', () => {
  it('is alive and ready when PostgreSQL and Temporal answer', async () => {
    const api = await stack().startApi();
    const http = client(api.url);
    expect((await http.get('/healthz')).body).to.deep.equal({ payload: { status: 'ok' } });
    const ready = await http.get('/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body.payload.checks).to.deep.equal({ database: true, temporal: true });
  });

  it('is alive but not ready when PostgreSQL is unreachable, without internals in the body', async () => {
    const deadPort = await freePort();
    const orm = await initOrm({
      databaseUrl: `postgres://gha_app@127.0.0.1:${deadPort}/none`,
      systemDatabaseUrl: `postgres://gha_system@127.0.0.1:${deadPort}/none`,
      poolMax: 1,
      connect: false,
    });
    try {
      const api = await stack().startApi({ orm });
      const http = client(api.url);
      expect((await http.get('/healthz')).status).to.equal(200);
      const ready = await http.get('/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.headers.get('retry-after')).to.be.a('string');
      expect(ready.body).to.include({
        type: 'SERVICE_UNAVAILABLE',
        detail: 'unreachable: database',
        instance: '/readyz',
      });
    } finally {
      await orm.close();
    }
  });

  it('is not ready when Temporal is unreachable', async () => {
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 500 });
    const api = await stack().startApi({ temporal: new Client({ connection }) });
    const ready = await client(api.url).get('/readyz');
    expect(ready.status).to.equal(503);
    expect(ready.body.detail).to.equal('unreachable: temporal');
  });
});
