import { expect } from 'chai';
import type { RouteDef } from '../../api/route.js';
import { allRoutes } from '../../api/routes/index.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

/** A concrete URL for the route: path parameters become an id nobody has. */
const concrete = (def: RouteDef) => def.path.replace(/:\w+/g, 'zz_unknown_0001');
/** The same path with its trailing slash added or removed. */
const otherSlash = (path: string) => (path.endsWith('/') ? path.slice(0, -1) : `${path}/`);
const isNoRoute = (res: { status: number; body: { detail?: unknown } | string }) =>
  res.status === 404 && typeof res.body === 'object' && String(res.body.detail).startsWith('no route for');

/**
 * One rule for every route, read from the route table so a new route is covered as it is added: the
 * route answers on its spec path exactly (`GET /v1/policy/` with the slash, `GET /v1/audit` without),
 * and the other spelling is a 404 in the spec's error shape naming the path to use.
 */
describe('trailing slashes: every route answers on its spec path only', () => {
  let http: HttpClient;

  before(async () => {
    http = client((await stack().startApi()).url);
  });

  it('keeps the spec’s slash on List Policies and none elsewhere', () => {
    const paths = allRoutes().map((def) => `${def.method} ${def.path}`);
    expect(paths).to.include('GET /v1/policy/');
    expect(paths.filter((p) => p.endsWith('/'))).to.deep.equal(['GET /v1/policy/']);
  });

  for (const def of allRoutes()) {
    const path = concrete(def);
    const wrong = otherSlash(path);

    it(`${def.method} ${def.path}: answered on ${path}`, async () => {
      const res = await http.send(def.method, path);
      expect(isNoRoute(res), JSON.stringify(res.body)).to.equal(false);
    });

    it(`${def.method} ${def.path}: 404 NOT_FOUND on ${wrong}, naming ${path}`, async () => {
      const res = await http.send(def.method, wrong);
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({
        type: 'NOT_FOUND',
        title: 'Not Found',
        detail: `no route for ${def.method} ${wrong}; the path is ${path}`,
        instance: wrong,
      });
    });
  }

  it('leaves a path that no route answers in either spelling a plain 404', async () => {
    const res = await http.get('/v1/policies/');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.equal({
      type: 'NOT_FOUND',
      title: 'Not Found',
      detail: 'no route for GET /v1/policies/',
      instance: '/v1/policies/',
    });
  });
});
