import { createHmac, generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { rotateSecret } from '../../../usecases/clients.js';
import { fixedClock } from '../../../domain/clock.js';
import { claims, tokenService, unauthorizedBody, unsignedToken } from '../../api/auth-fixtures.js';
import { makeClient, type TestClient } from '../../support/factories.js';
import { client, type HttpClient } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { report } from '../support/report.js';
import { fillPath, isProtected, routeCatalogue } from '../support/routes.js';

/**
 * Abuse 10, the JWT attack table (spec 5, D3), against every protected route of allRoutes().
 * test/api/auth-middleware.test.ts holds the table on a probe route (and the well-formed token each
 * attack differs from); test/api/route-auth-matrix.test.ts sweeps missing, garbage, expired,
 * alg none, unknown kid and wrong audience over every route. This sweep adds the rest: algorithm
 * confusion (RS256/ES256 with the configured kid, an embedded key, a key URL), a flipped signature
 * byte, a stripped signature, a widened payload under the old signature, wrong issuer, missing or
 * non-numeric exp, not-yet-valid, expired beyond the 30 s skew, a kid that names a file, and the
 * token of a rotated client secret. Pass: 401 UNAUTHORIZED with the same body for all.
 */
const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('resilience: JWT attack table on every protected route (D3)', () => {
  let http: HttpClient;
  let acme: TestClient;
  let rotated: TestClient;
  let rotatedToken: string;

  before(async () => {
    http = client((await stack().startApi()).url);
    acme = await makeClient();
    rotated = await makeClient();
    rotatedToken = rotated.token();
    await rotateSecret(stack().orm.em.fork(), rotated.clientId);
  });

  const kid = () => stack().config.JWT_SIGNING_KEYS[0]!.kid;
  const secret = () => stack().config.JWT_SIGNING_KEYS[0]!.secret;
  const body = (overrides: object = {}) => ({
    ...claims(acme.clientId, ['policy.all', 'employee.all']),
    ...overrides,
  });
  /** Signed by hand with the real key, so claims the library would refuse to sign can be sent. */
  const hs256 = (payload: object) => {
    const signingInput = `${b64({ alg: 'HS256', typ: 'JWT', kid: kid() })}.${b64(payload)}`;
    return `${signingInput}.${createHmac('sha256', secret()).update(signingInput).digest('base64url')}`;
  };

  function attacks(): Record<string, () => string> {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const jwk = rsa.publicKey.export({ format: 'jwk' });
    const valid = hs256(body());
    const [h, p, sig] = valid.split('.') as [string, string, string];
    const flipped = Buffer.from(sig, 'base64url');
    flipped[5] = flipped[5]! ^ 0x01;
    const now = Math.floor(Date.now() / 1000);
    return {
      'alg none': () => unsignedToken(acme.clientId),
      'RS256 signed by another key, configured kid': () =>
        jwt.sign(body(), rsa.privateKey, { algorithm: 'RS256', keyid: kid() }),
      'ES256 signed by another key, configured kid': () =>
        jwt.sign(body(), ec.privateKey, { algorithm: 'ES256', keyid: kid() }),
      'HS256 keyed with a public key (HS/RS confusion)': () =>
        jwt.sign(body(), publicPem, { algorithm: 'HS256', keyid: kid() }),
      'embedded jwk header': () =>
        jwt.sign(body(), rsa.privateKey, {
          algorithm: 'RS256',
          keyid: kid(),
          header: { alg: 'RS256', jwk } as jwt.JwtHeader,
        }),
      'jku header pointing at a key set': () =>
        jwt.sign(body(), rsa.privateKey, {
          algorithm: 'RS256',
          keyid: kid(),
          header: { alg: 'RS256', jku: 'http://127.0.0.1:9/keys.json' },
        }),
      'kid naming a file, signed with an empty key': () =>
        `${b64({ alg: 'HS256', typ: 'JWT', kid: '../../../../dev/null' })}.${p}.${jwt.sign(body(), 'x', { algorithm: 'HS256' }).split('.')[2]}`,
      'flipped signature byte': () => `${h}.${p}.${flipped.toString('base64url')}`,
      'signature stripped': () => `${h}.${p}.`,
      'payload widened under the old signature': () =>
        `${h}.${b64(body({ scope: 'policy.all employee.all', sub: rotated.clientId }))}.${sig}`,
      'wrong issuer': () => tokenService({ issuer: 'someone-else' }).issue(acme.clientId, ['policy.all'], 1),
      'wrong audience': () =>
        tokenService({ audience: 'another-api' }).issue(acme.clientId, ['policy.all'], 1),
      'missing exp': () => hs256(body({ exp: undefined })),
      'exp as a string': () => hs256(body({ exp: String(now + 3600) })),
      'not yet valid (nbf in an hour)': () => hs256(body({ nbf: now + 3600 })),
      'expired beyond the 30 s skew': () =>
        tokenService({ clock: fixedClock(new Date(Date.now() - 3600_000 - 40_000)) }).issue(
          acme.clientId,
          ['policy.all', 'employee.all'],
          1,
        ),
      'token of a rotated client secret': () => rotatedToken,
    };
  }

  it('answers 401 UNAUTHORIZED, the same body, to every attack on every protected route', async function () {
    this.timeout(120_000);
    const routes = routeCatalogue().filter(isProtected);
    const table = attacks();
    const failures: string[] = [];
    let requests = 0;
    for (const [name, make] of Object.entries(table)) {
      const token = make();
      for (const info of routes) {
        const path = fillPath(info.def, {});
        const res = await http.send(info.def.method, path, { token });
        requests++;
        if (res.status !== 401 || JSON.stringify(res.body) !== JSON.stringify(unauthorizedBody(path))) {
          failures.push(`${name} on ${info.key}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    // The control: the token every attack is derived from is accepted.
    const control = await http.get('/v1/auth/session', { token: hs256(body()) });
    report('JWT attack table', {
      attacks: Object.keys(table).length,
      routes: routes.length,
      requests,
      not401: failures.length,
    });
    expect(control.status).to.equal(200);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });
});
