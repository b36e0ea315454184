import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { fixedClock } from '../../domain/clock.js';
import { makeClient, type TestClient } from '../support/factories.js';
import { stack } from '../support/stack.js';
import {
  claims,
  otherAlgorithmToken,
  PROBE_PATH,
  startProbeApi,
  tokenService,
  unauthorizedBody,
  unsignedToken,
  type ProbeApi,
} from './auth-fixtures.js';

const TTL_MS = 3600 * 1000;

describe('authentication of protected routes (spec 5, D2, D3)', () => {
  let api: ProbeApi;
  let acme: TestClient;

  before(async () => {
    api = await startProbeApi();
    acme = await makeClient();
  });
  after(() => api.close());

  const issuedAgo = (ms: number) =>
    tokenService({ clock: fixedClock(new Date(Date.now() - ms)) }).issue(acme.clientId, ['policy.get'], 1);
  const signedWith = (secret: string, overrides: object = {}) => {
    const kid = stack().config.JWT_SIGNING_KEYS[0]!.kid;
    return jwt.sign({ ...claims(acme.clientId), ...overrides }, secret, { algorithm: 'HS256', keyid: kid });
  };
  const realSecret = () => stack().config.JWT_SIGNING_KEYS[0]!.secret;

  const rejected: { name: string; authorization: () => string | undefined }[] = [
    { name: 'no Authorization header', authorization: () => undefined },
    { name: 'an empty Bearer', authorization: () => 'Bearer ' },
    { name: 'another scheme', authorization: () => `Basic ${Buffer.from('a:b').toString('base64')}` },
    { name: 'a token without a scheme', authorization: () => acme.token() },
    { name: 'garbage', authorization: () => 'Bearer garbage' },
    { name: 'three garbage parts', authorization: () => 'Bearer aaa.bbb.ccc' },
    {
      name: 'a token expired beyond the 30 s skew',
      authorization: () => `Bearer ${issuedAgo(TTL_MS + 40_000)}`,
    },
    {
      // Signed with the real key (as a leaked key or a bug elsewhere would), but living longer than ours do.
      name: 'a token living longer than the one-hour lifetime',
      authorization: () => {
        const iat = Math.floor(Date.now() / 1000);
        return `Bearer ${signedWith(realSecret(), { iat, exp: iat + 2 * 3600 })}`;
      },
    },
    {
      name: 'a token signed with a wrong secret',
      authorization: () => `Bearer ${signedWith('x'.repeat(40))}`,
    },
    { name: 'alg none without a signature', authorization: () => `Bearer ${unsignedToken(acme.clientId)}` },
    {
      name: 'alg none with a bogus signature',
      authorization: () => `Bearer ${unsignedToken(acme.clientId, 'c2ln')}`,
    },
    {
      name: 'another algorithm (HS512)',
      authorization: () => `Bearer ${otherAlgorithmToken(acme.clientId)}`,
    },
    {
      name: 'a token without kid',
      authorization: () => `Bearer ${jwt.sign(claims(acme.clientId), realSecret(), { algorithm: 'HS256' })}`,
    },
    {
      name: 'an unknown kid',
      authorization: () =>
        `Bearer ${tokenService({ keys: [{ kid: 'retired', secret: realSecret() }] }).issue(acme.clientId, ['policy.get'], 1)}`,
    },
    {
      name: 'a wrong issuer',
      authorization: () =>
        `Bearer ${tokenService({ issuer: 'someone-else' }).issue(acme.clientId, ['policy.get'], 1)}`,
    },
    {
      name: 'a wrong audience',
      authorization: () =>
        `Bearer ${tokenService({ audience: 'other-api' }).issue(acme.clientId, ['policy.get'], 1)}`,
    },
    {
      name: 'an unknown client',
      authorization: () => `Bearer ${signedWith(realSecret(), { sub: 'cli_unknown' })}`,
    },
    { name: 'an older secret version', authorization: () => `Bearer ${signedWith(realSecret(), { sv: 0 })}` },
    {
      name: 'an unknown scope name',
      authorization: () => `Bearer ${signedWith(realSecret(), { scope: 'policy.root' })}`,
    },
    { name: 'no jti', authorization: () => `Bearer ${signedWith(realSecret(), { jti: undefined })}` },
  ];

  for (const c of rejected) {
    it(`answers 401 UNAUTHORIZED for ${c.name}`, async () => {
      const authorization = c.authorization();
      const res = await api.http.get(PROBE_PATH, { headers: authorization ? { authorization } : {} });
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal(unauthorizedBody(PROBE_PATH));
      expect(res.headers.get('www-authenticate')).to.equal('Bearer');
    });
  }

  it('accepts a well-formed hand-signed token (the rejections above differ from it in one thing only)', async () => {
    const res = await api.http.get(PROBE_PATH, { token: signedWith(realSecret()) });
    expect(res.status).to.equal(200);
  });

  it('accepts a token expired by less than the 30 s skew, and the scheme in any case', async () => {
    const token = issuedAgo(TTL_MS + 20_000);
    const res = await api.http.get(PROBE_PATH, { headers: { authorization: `bearer ${token}` } });
    expect(res.status).to.equal(200);
    expect(res.body.payload.client_id).to.equal(acme.clientId);
  });

  it('answers 403 Insufficient Scope naming the scopes that would do', async () => {
    const res = await api.http.get(PROBE_PATH, { token: acme.token(['employee.get', 'policy.list']) });
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.equal({
      type: 'FORBIDDEN',
      title: 'Insufficient Scope',
      detail: 'requires one of: policy.get, policy.all',
      instance: PROBE_PATH,
    });
  });

  it('admits any one of the accepted scopes', async () => {
    for (const scope of ['policy.get', 'policy.all'] as const) {
      const res = await api.http.get(PROBE_PATH, { token: acme.token([scope]) });
      expect(res.status, scope).to.equal(200);
      expect(res.body.payload.scopes).to.deep.equal([scope]);
    }
  });
});
