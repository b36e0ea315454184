import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { createCodecServer, listenCodecServer } from '../../infra/codec-server.js';
import { AesGcmPayloadCodec } from '../../infra/payload-codec.js';
import { spawnEntry } from '../../infra/processes.js';
import { freePort } from '../../infra/ports.js';

const UI = 'http://localhost:8233';
const token = randomBytes(24).toString('base64url');
const codec = new AesGcmPayloadCodec([{ kid: 'k1', key: randomBytes(32) }]);
const input = { endorsementId: 'end_4411', employeeId: 'emp_9001' };

const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: Buffer.from(p.data!).toString('base64'),
});
const fromJson = (p: { metadata: Record<string, string>; data: string }): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data, 'base64'),
});

describe('codec server', () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = await listenCodecServer(
      createCodecServer({ codec, token, allowedOrigins: [UI] }),
      0,
      '127.0.0.1',
    );
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => server.close());

  const post = (path: string, payloads: unknown[], headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
      body: JSON.stringify({ payloads }),
    });

  it('decodes what the codec encoded, with the token as a bearer header or as the UI’s path segment', async () => {
    const sealed = (await codec.encode([defaultPayloadConverter.toPayload(input)])).map(toJson);
    for (const [path, headers] of [
      ['/decode', { authorization: `Bearer ${token}` }],
      [`/${token}/decode`, { origin: UI }],
    ] as const) {
      const res = await post(path, sealed, headers);
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { payloads: Parameters<typeof fromJson>[0][] };
      expect(defaultPayloadConverter.fromPayload(fromJson(body.payloads[0]!))).to.deep.equal(input);
    }
  });

  it('encodes for the codec to decode', async () => {
    const res = await post('/encode', [toJson(defaultPayloadConverter.toPayload(input))], {
      authorization: `Bearer ${token}`,
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { payloads: Parameters<typeof fromJson>[0][] };
    expect(Buffer.from(body.payloads[0]!.metadata.encoding!, 'base64').toString()).to.equal(
      'binary/encrypted',
    );
    const [opened] = await codec.decode([fromJson(body.payloads[0]!)]);
    expect(defaultPayloadConverter.fromPayload(opened!)).to.deep.equal(input);
  });

  it('refuses a call without the token or with another one, and names an unknown key id', async () => {
    const sealed = (await codec.encode([defaultPayloadConverter.toPayload(input)])).map(toJson);
    expect((await post('/decode', sealed)).status).to.equal(401);
    expect((await post('/decode', sealed, { authorization: `Bearer ${token}x` })).status).to.equal(401);
    expect((await post(`/${token}x/decode`, sealed)).status).to.equal(401);
    const other = (
      await new AesGcmPayloadCodec([{ kid: 'gone', key: randomBytes(32) }]).encode([
        defaultPayloadConverter.toPayload(input),
      ])
    ).map(toJson);
    const res = await post('/decode', other, { authorization: `Bearer ${token}` });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { error: string }).error).to.include('"gone"');
  });

  it('answers the CORS preflight of the Web UI’s origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${base}/${token}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    const ok = await preflight(UI);
    expect(ok.status).to.equal(204);
    expect(ok.headers.get('access-control-allow-origin')).to.equal(UI);
    expect(ok.headers.get('access-control-allow-methods')).to.include('POST');
    expect(ok.headers.get('access-control-allow-headers')).to.include('x-namespace');
    const foreign = await preflight('http://evil.example');
    expect(foreign.status).to.equal(403);
    expect(foreign.headers.get('access-control-allow-origin')).to.equal(null);
    const sealed = (await codec.encode([defaultPayloadConverter.toPayload(input)])).map(toJson);
    expect((await post(`/${token}/decode`, sealed, { origin: 'http://evil.example' })).status).to.equal(403);
  });
});

describe('npm run codec-server', () => {
  it('listens on CODEC_SERVER_HOST and CODEC_SERVER_PORT from the environment, and only there', async function () {
    this.timeout(30_000);
    const port = await freePort();
    const key = `k9:${randomBytes(32).toString('hex')}`;
    const child = spawnEntry(
      'scripts/codec-server.ts',
      {
        ...process.env,
        DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'codec-')),
        PAYLOAD_ENCRYPTION_KEYS: key,
        CODEC_SERVER_TOKEN: token,
        CODEC_SERVER_HOST: '127.0.0.2',
        CODEC_SERVER_PORT: String(port),
      },
      'ignore',
    );
    try {
      const url = (host: string) => `http://${host}:${port}/decode`;
      const call = (host: string) =>
        fetch(url(host), {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ payloads: [] }),
        });
      const deadline = Date.now() + 20_000;
      let res = await call('127.0.0.2').catch(() => null);
      while (!res && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        res = await call('127.0.0.2').catch(() => null);
      }
      expect(res?.status).to.equal(200);
      expect(await res!.json()).to.deep.equal({ payloads: [] });
      const elsewhere = await call('127.0.0.1').then(
        (r) => r.status,
        (e: Error) => (e.cause as { code?: string } | undefined)?.code,
      );
      expect(elsewhere).to.equal('ECONNREFUSED');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
