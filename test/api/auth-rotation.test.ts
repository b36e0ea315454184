import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { revokeClient, rotateSecret } from '../../usecases/clients.js';
import { createCredentialStore, LISTENER_NAME } from '../../api/auth/credentials.js';
import { loadConfig } from '../../config/index.js';
import { makeClient, sql, type TestClient } from '../support/factories.js';
import type { HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';
import {
  PROBE_PATH,
  requestToken,
  startProbeApi,
  tokenService,
  unauthorizedBody,
  type ProbeApi,
} from './auth-fixtures.js';

async function tokenFor(http: HttpClient, clientId: string, secret: string): Promise<string> {
  const res = await requestToken(http, {
    client_id: clientId,
    client_secret: secret,
    scopes: ['policy.get'],
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.payload.access_token as string;
}

const probe = async (api: ProbeApi, token: string) => (await api.http.get(PROBE_PATH, { token })).status;

/** Polls a condition the test cannot await directly (a connection dropping or coming back). */
async function eventually(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('signing key and client secret rotation (D3)', () => {
  const apis: ProbeApi[] = [];
  const start = async (...args: Parameters<typeof startProbeApi>) => {
    const api = await startProbeApi(...args);
    apis.push(api);
    return api;
  };
  after(() => Promise.all(apis.map((api) => api.close())));

  describe('signing keys', () => {
    const k1 = `k1:${'1'.repeat(40)}`;
    const k2 = `k2:${'2'.repeat(40)}`;
    const keys = (value: string) => loadConfig({ ...process.env, JWT_SIGNING_KEYS: value }).JWT_SIGNING_KEYS;

    it('keeps verifying tokens of the previous key while it is configured, and not after it is removed', async () => {
      const client = await makeClient();
      const before = await start({ tokens: tokenService({ keys: keys(k1) }) });
      const during = await start({ tokens: tokenService({ keys: keys(`${k2},${k1}`) }) });
      const after = await start({ tokens: tokenService({ keys: keys(k2) }) });

      const oldToken = await tokenFor(before.http, client.clientId, client.clientSecret);
      const newToken = await tokenFor(during.http, client.clientId, client.clientSecret);
      expect(jwt.decode(oldToken, { complete: true })!.header.kid).to.equal('k1');
      expect(jwt.decode(newToken, { complete: true })!.header.kid).to.equal('k2');

      expect(await probe(before, oldToken)).to.equal(200);
      expect(await probe(during, oldToken)).to.equal(200);
      expect(await probe(after, oldToken)).to.equal(401);

      expect(await probe(during, newToken)).to.equal(200);
      expect(await probe(after, newToken)).to.equal(200);
      expect(await probe(before, newToken)).to.equal(401);
    });
  });

  describe('client secrets', () => {
    let client: TestClient;
    beforeEach(async () => {
      client = await makeClient();
    });

    it('ends every earlier token on every instance; the new secret works and the old one does not', async () => {
      const [a, b] = await Promise.all([start(), start()]);
      await Promise.all([a.deps.credentials.start(), b.deps.credentials.start()]);
      expect(a.deps.credentials.listening && b.deps.credentials.listening).to.equal(true);
      const oldToken = await tokenFor(a.http, client.clientId, client.clientSecret);
      // Both instances now hold the current version in memory.
      expect(await probe(a, oldToken)).to.equal(200);
      expect(await probe(b, oldToken)).to.equal(200);

      const rotated = await rotateSecret(stack().orm.em.fork(), client.clientId);
      await Promise.all([a.deps.credentials.sync(), b.deps.credentials.sync()]);

      expect(await probe(a, oldToken)).to.equal(401);
      expect(await probe(b, oldToken)).to.equal(401);
      const oldSecret = await requestToken(b.http, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scopes: ['policy.get'],
      });
      expect(oldSecret.status).to.equal(401);
      expect(oldSecret.body.type).to.equal('A4001');

      const newToken = await tokenFor(b.http, client.clientId, rotated.client_secret);
      expect((jwt.decode(newToken) as jwt.JwtPayload).sv).to.equal(2);
      expect(await probe(a, newToken)).to.equal(200);
      expect(await probe(b, newToken)).to.equal(200);
    });

    it('accepts a fresh token naming a newer version before this copy hears of the rotation', async () => {
      const api = await start();
      await api.deps.credentials.start();
      const oldToken = await tokenFor(api.http, client.clientId, client.clientSecret);
      expect(await probe(api, oldToken)).to.equal(200);

      // Rotated without the announcement: this copy's memory still says version 1.
      await sql('update clients set secret_version = secret_version + 1 where id = ?', [client.clientId]);
      const newToken = tokenService().issue(client.clientId, ['policy.get'], 2);
      expect(await probe(api, newToken)).to.equal(200);
      expect(await probe(api, oldToken), 'and the version it read ends the old token').to.equal(401);
    });

    it('reads PostgreSQL on every request when the store does not listen', async () => {
      const api = await start({ credentials: createCredentialStore(stack().orm, { listen: false }) });
      const oldToken = await tokenFor(api.http, client.clientId, client.clientSecret);
      expect(await probe(api, oldToken)).to.equal(200);

      await rotateSecret(stack().orm.em.fork(), client.clientId);
      expect(api.deps.credentials.listening).to.equal(false);
      expect(await probe(api, oldToken)).to.equal(401);
    });

    it('gives its listener connection back when idle and listens again on the next request', async () => {
      const credentials = createCredentialStore(stack().orm, { idleReleaseMs: 100 });
      const api = await start({ credentials });
      const token = await tokenFor(api.http, client.clientId, client.clientSecret);
      await credentials.start();
      expect(credentials.listening).to.equal(true);

      await eventually(() => !credentials.listening, 'the idle listener to be released');
      await rotateSecret(stack().orm.em.fork(), client.clientId);
      expect(await probe(api, token)).to.equal(401);
      await eventually(() => credentials.listening, 'the listener to come back after a request');
    });

    it('stops trusting its memory when the listener connection is lost, and listens again', async () => {
      const api = await start();
      await api.deps.credentials.start();
      const firstToken = await tokenFor(api.http, client.clientId, client.clientSecret);
      expect(await probe(api, firstToken)).to.equal(200);

      await sql(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = ? and datname = current_database()',
        [LISTENER_NAME],
      );
      await eventually(() => !api.deps.credentials.listening, 'the listener to be noticed gone');
      const second = await rotateSecret(stack().orm.em.fork(), client.clientId);
      // No notification can reach this instance now; it must read the new version itself.
      expect(await probe(api, firstToken)).to.equal(401);

      await eventually(() => api.deps.credentials.listening, 'the listener to reconnect');
      const secondToken = await tokenFor(api.http, client.clientId, second.client_secret);
      expect(await probe(api, secondToken)).to.equal(200);
      await rotateSecret(stack().orm.em.fork(), client.clientId);
      await api.deps.credentials.sync();
      expect(await probe(api, secondToken)).to.equal(401);
    });
  });

  describe('client revocation (D18)', () => {
    let client: TestClient;
    beforeEach(async () => {
      client = await makeClient();
    });

    it("refuses the revoked client's tokens already issued (401, the spec's body) on every instance, and its secret", async () => {
      const [a, b] = await Promise.all([start(), start()]);
      await Promise.all([a.deps.credentials.start(), b.deps.credentials.start()]);
      const token = await tokenFor(a.http, client.clientId, client.clientSecret);
      // Both instances hold the current version in memory before the revocation.
      expect(await probe(a, token)).to.equal(200);
      expect(await probe(b, token)).to.equal(200);

      const revoked = await revokeClient(stack().orm.em.fork(), client.clientId);
      expect(revoked.revoked_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      await Promise.all([a.deps.credentials.sync(), b.deps.credentials.sync()]);

      for (const api of [a, b]) {
        const res = await api.http.get(PROBE_PATH, { token });
        expect(res.status).to.equal(401);
        expect(res.body).to.deep.equal(unauthorizedBody(PROBE_PATH));
      }
      // Its secret answers exactly as an unknown client's would (no enumeration).
      const again = await requestToken(b.http, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scopes: ['policy.get'],
      });
      const unknown = await requestToken(b.http, {
        client_id: 'cli_neverissued',
        client_secret: client.clientSecret,
        scopes: ['policy.get'],
      });
      expect(again.status).to.equal(401);
      expect(again.body).to.deep.equal({ ...unknown.body, instance: again.body.instance });
      expect(again.body.type).to.equal('A4001');

      // Revoking again keeps the first instant.
      expect((await revokeClient(stack().orm.em.fork(), client.clientId)).revoked_at).to.equal(
        revoked.revoked_at,
      );
    });

    it('refuses tokens at once on an instance that does not listen (reads PostgreSQL)', async () => {
      const api = await start({ credentials: createCredentialStore(stack().orm, { listen: false }) });
      const token = await tokenFor(api.http, client.clientId, client.clientSecret);
      expect(await probe(api, token)).to.equal(200);
      await revokeClient(stack().orm.em.fork(), client.clientId);
      expect(await probe(api, token)).to.equal(401);
    });

    it('is lifted only by a rotation that says so: a new secret, the old tokens still refused', async () => {
      const api = await start();
      const token = await tokenFor(api.http, client.clientId, client.clientSecret);
      await revokeClient(stack().orm.em.fork(), client.clientId);
      let refused: unknown;
      await rotateSecret(stack().orm.em.fork(), client.clientId).catch((err: unknown) => (refused = err));
      expect((refused as Error).message).to.equal(
        `client ${client.clientId} is revoked; client:rotate ${client.clientId} --reinstate issues a new secret and lifts the revocation`,
      );

      const reinstated = await rotateSecret(stack().orm.em.fork(), client.clientId, true);
      expect(reinstated).to.include({ client_id: client.clientId, reinstated: true });
      await api.deps.credentials.sync();
      expect(await probe(api, token)).to.equal(401);
      const fresh = await tokenFor(api.http, client.clientId, reinstated.client_secret);
      expect(await probe(api, fresh)).to.equal(200);
      const [row] = await sql('select revoked_at, secret_version from clients where id = ?', [
        client.clientId,
      ]);
      expect(row).to.deep.equal({ revoked_at: null, secret_version: 3 });
    });
  });
});
