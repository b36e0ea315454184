import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { SCOPES } from '../../domain/scopes.js';
import { makeClient, sql, type TestClient } from '../support/factories.js';
import { stack } from '../support/stack.js';
import { PROBE_PATH, requestToken, startProbeApi, type ProbeApi } from './auth-fixtures.js';

const TOKEN_PATH = '/v1/auth/token';

async function tokenRows(clientId: string): Promise<{ succeeded: boolean }[]> {
  return sql('select succeeded from token_issues where client_id = ? order by id', [clientId]);
}

/** Failed attempts recorded under the client_id as sent (D4: their own budget). */
async function failureCount(clientKey: string): Promise<number> {
  const [row] = await sql('select count(*)::int as n from token_failures where client_key = ?', [clientKey]);
  return row.n as number;
}

describe('POST /v1/auth/token', () => {
  let api: ProbeApi;
  let acme: TestClient;

  before(async () => {
    api = await startProbeApi();
    acme = await makeClient();
  });
  after(() => api.close());

  const credentials = (scopes: unknown) => ({
    client_id: acme.clientId,
    client_secret: acme.clientSecret,
    scopes,
  });

  it('issues a one-hour Bearer JWT carrying the client, the normalised scopes and the signing key', async () => {
    const res = await requestToken(api.http, credentials(['policy.get', 'EMPLOYEE_GET']));

    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.body.payload).to.have.all.keys('access_token', 'expires_in', 'token_type');
    expect(res.body.payload).to.include({ expires_in: 3600, token_type: 'Bearer' });
    const decoded = jwt.decode(res.body.payload.access_token, { complete: true })!;
    const cfg = stack().config;
    expect(decoded.header).to.include({ alg: 'HS256', kid: cfg.JWT_SIGNING_KEYS[0]!.kid });
    const claims = decoded.payload as jwt.JwtPayload;
    expect(claims).to.include({
      iss: cfg.JWT_ISSUER,
      aud: cfg.JWT_AUDIENCE,
      sub: acme.clientId,
      scope: 'policy.get employee.get',
      sv: 1,
    });
    expect(claims.exp! - claims.iat!).to.equal(3600);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).to.be.below(60);
    expect(claims.jti).to.be.a('string').and.not.be.empty;

    const probe = await api.http.get(PROBE_PATH, { token: res.body.payload.access_token });
    expect(probe.status).to.equal(200);
    expect(probe.body.payload).to.deep.equal({
      client_id: acme.clientId,
      scopes: ['policy.get', 'employee.get'],
    });
  });

  it('gives every token its own jti', async () => {
    const [a, b] = await Promise.all([
      requestToken(api.http, credentials(['policy.get'])),
      requestToken(api.http, credentials(['policy.get'])),
    ]);
    const jti = (r: typeof a) => (jwt.decode(r.body.payload.access_token) as jwt.JwtPayload).jti;
    expect(jti(a)).to.not.equal(jti(b));
  });

  for (const [asked, granted] of [
    [['EMPLOYEE_GET'], 'employee.get'],
    [['employee.get'], 'employee.get'],
    [['Employee.Get'], 'employee.get'],
    [['POLICY_MEMBERS_LIST'], 'policy.members.list'],
    [['policy_members.list', 'policy.members.list', 'POLICY.ALL'], 'policy.members.list policy.all'],
    [['POLICY_ENDORSEMENTS'], 'policy.endorsements'],
    [
      ['policy_endorsements', 'Policy.Endorsements', 'EMPLOYEE_CREATE'],
      'policy.endorsements employee.create',
    ],
  ] as const) {
    it(`normalises scopes ${JSON.stringify(asked)} to "${granted}"`, async () => {
      const res = await requestToken(api.http, credentials(asked));
      expect(res.status).to.equal(200);
      const claims = jwt.decode(res.body.payload.access_token) as jwt.JwtPayload;
      expect(claims.scope).to.equal(granted);
    });
  }

  it('records an issued token as a succeeded request of the client', async () => {
    const client = await makeClient();
    const res = await requestToken(api.http, {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      scopes: ['policy.get'],
    });
    expect(res.status).to.equal(200);
    expect(await tokenRows(client.clientId)).to.deep.equal([{ succeeded: true }]);
  });

  describe('invalid bodies: 400 VALIDATION_ERROR naming the field, nothing counted', () => {
    const cases: { name: string; body: () => unknown; detail: RegExp }[] = [
      {
        name: 'scopes missing',
        body: () => ({ client_id: acme.clientId, client_secret: acme.clientSecret }),
        detail: /^scopes: is required$/,
      },
      {
        name: 'scopes empty',
        body: () => credentials([]),
        detail: /^scopes: must contain at least one scope$/,
      },
      {
        name: 'scopes not an array',
        body: () => credentials('employee.get'),
        detail: /^scopes: must be an array of scope names$/,
      },
      {
        name: 'scopes null',
        body: () => credentials(null),
        detail: /^scopes: must be an array of scope names$/,
      },
      {
        name: 'a scope that is not a string',
        body: () => credentials([42]),
        detail: /^scopes\.0: must be a scope/,
      },
      {
        name: 'an unknown scope name',
        body: () => credentials(['employee.get', 'policy.delete']),
        detail: /^scopes\.1: unknown scope "policy\.delete"; known: employee\.get, /,
      },
      {
        name: 'an extra field',
        body: () => ({ ...credentials(['employee.get']), grant_type: 'client_credentials' }),
        detail: /^grant_type: is not an allowed field$/,
      },
      {
        name: 'client_id missing',
        body: () => ({ client_secret: acme.clientSecret, scopes: ['employee.get'] }),
        detail: /^client_id: is required$/,
      },
      {
        name: 'client_secret not a string',
        body: () => ({ client_id: acme.clientId, client_secret: 12345, scopes: ['employee.get'] }),
        detail: /^client_secret: must be a string$/,
      },
      {
        name: 'client_secret empty',
        body: () => ({ client_id: acme.clientId, client_secret: '', scopes: ['employee.get'] }),
        detail: /^client_secret: must not be empty$/,
      },
      {
        name: 'a JSON array body',
        body: () => [credentials(['employee.get'])],
        detail: /^body: must be an object$/,
      },
    ];

    for (const c of cases) {
      it(c.name, async () => {
        const before = (await tokenRows(acme.clientId)).length;
        const res = await requestToken(api.http, c.body());
        expect(res.status).to.equal(400);
        expect(res.body).to.include({
          type: 'VALIDATION_ERROR',
          title: 'Validation Failed',
          instance: TOKEN_PATH,
        });
        expect(res.body.detail).to.match(c.detail);
        expect(await tokenRows(acme.clientId)).to.have.length(before);
      });
    }
  });

  describe('wrong credentials: 401 A4001, one body whether or not the client exists', () => {
    it('answers a wrong secret and an unknown client_id identically, each counted as a failure', async () => {
      const client = await makeClient();
      const wrongSecret = await requestToken(api.http, {
        client_id: client.clientId,
        client_secret: `${client.clientSecret}x`,
        scopes: ['policy.get'],
      });
      const unknownId = await requestToken(api.http, {
        client_id: `${client.clientId}x`,
        client_secret: client.clientSecret,
        scopes: ['policy.get'],
      });

      const expected = {
        type: 'A4001',
        title: 'Invalid Authentication Credentials',
        detail: 'client_id or client_secret is not valid',
        instance: TOKEN_PATH,
      };
      expect(wrongSecret.status).to.equal(401);
      expect(wrongSecret.body).to.deep.equal(expected);
      expect(unknownId.status).to.equal(401);
      expect(unknownId.body).to.deep.equal(expected);
      expect(await tokenRows(client.clientId)).to.deep.equal([]);
      expect(await failureCount(client.clientId)).to.equal(1);
      expect(await failureCount(`${client.clientId}x`)).to.equal(1);
    });

    it('checks the secret before the client’s allowed scopes', async () => {
      const narrow = await makeClient({ scopes: ['policy.get'] });
      const res = await requestToken(api.http, {
        client_id: narrow.clientId,
        client_secret: 'sk_wrong',
        scopes: ['employee.get'],
      });
      expect(res.status).to.equal(401);
      expect(res.body.type).to.equal('A4001');
    });
  });

  it('answers an unexpected failure with 500 E5000 and an empty detail, nothing internal', async () => {
    const failing = await startProbeApi({
      tokens: {
        ...api.deps.tokens,
        issue: () => {
          throw new Error('signing backend exploded at /srv/keys');
        },
      },
    });
    try {
      const res = await requestToken(failing.http, credentials(['policy.get']));
      expect(res.status).to.equal(500);
      expect(res.body).to.deep.equal({
        type: 'E5000',
        title: 'An unexpected error occurred',
        detail: '',
        instance: TOKEN_PATH,
      });
    } finally {
      await failing.close();
    }
  });

  describe('scopes outside the client’s allowed set', () => {
    it('answers 403 FORBIDDEN naming the refused scopes', async () => {
      const narrow = await makeClient({ scopes: ['policy.get', 'policy.list'] });
      const res = await requestToken(api.http, {
        client_id: narrow.clientId,
        client_secret: narrow.clientSecret,
        scopes: ['POLICY_GET', 'employee.get', 'policy.all'],
      });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({
        type: 'FORBIDDEN',
        title: 'Forbidden',
        detail: 'scopes not allowed for this client: employee.get, policy.all',
        instance: TOKEN_PATH,
      });
      // The right secret with refused scopes is neither a token nor a failed guess.
      expect(await tokenRows(narrow.clientId)).to.deep.equal([]);
      expect(await failureCount(narrow.clientId)).to.equal(0);

      const allowed = await requestToken(api.http, {
        client_id: narrow.clientId,
        client_secret: narrow.clientSecret,
        scopes: ['policy.list'],
      });
      expect(allowed.status).to.equal(200);
    });

    it('lets a client allowed a family’s `.all` ask for the narrower scopes of that family only', async () => {
      const policyAdmin = await makeClient({ scopes: ['policy.all'] });
      const ask = (scopes: string[]) =>
        requestToken(api.http, {
          client_id: policyAdmin.clientId,
          client_secret: policyAdmin.clientSecret,
          scopes,
        });

      const narrow = await ask(['policy.get', 'POLICY_MEMBERS_LIST']);
      expect(narrow.status).to.equal(200);
      expect((jwt.decode(narrow.body.payload.access_token) as jwt.JwtPayload).scope).to.equal(
        'policy.get policy.members.list',
      );
      const other = await ask(['policy.get', 'employee.get']);
      expect(other.status).to.equal(403);
      expect(other.body.detail).to.equal('scopes not allowed for this client: employee.get');
    });

    it('gives policy.endorsements to a client allowed it, or allowed policy.all before it existed, and no other', async () => {
      const ask = (c: TestClient, scopes: string[]) =>
        requestToken(api.http, { client_id: c.clientId, client_secret: c.clientSecret, scopes });
      const granted = (r: { body: any }) => (jwt.decode(r.body.payload.access_token) as jwt.JwtPayload).scope;

      // A client created with D2's eight scopes, as every client was before policy.endorsements.
      const older = await makeClient({ scopes: SCOPES.filter((s) => s !== 'policy.endorsements') });
      const fromAll = await ask(older, ['POLICY_ENDORSEMENTS', 'employee.create']);
      expect(fromAll.status).to.equal(200);
      expect(granted(fromAll)).to.equal('policy.endorsements employee.create');

      const integrator = await makeClient({ scopes: ['policy.endorsements', 'employee.create'] });
      const own = await ask(integrator, ['policy_endorsements', 'EMPLOYEE_CREATE']);
      expect(own.status).to.equal(200);
      expect(granted(own)).to.equal('policy.endorsements employee.create');
      // Narrower than policy.all: it is not a way to the family's other scopes.
      const wider = await ask(integrator, ['policy.endorsements', 'policy.get', 'policy.all']);
      expect(wider.status).to.equal(403);
      expect(wider.body.detail).to.equal('scopes not allowed for this client: policy.get, policy.all');

      const reader = await makeClient({ scopes: ['policy.get'] });
      const refused = await ask(reader, ['policy.endorsements']);
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.equal('scopes not allowed for this client: policy.endorsements');
    });
  });
});
