import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  apiConfig,
  codecServerOrigins,
  ConfigError,
  configSchema,
  loadConfig,
  payloadEncryptionKeys,
  temporalTls,
} from '../../config/index.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const KEY = 'k'.repeat(32);

describe('configuration', () => {
  it('names every setting it reads in the docs, where an operator looks for it', () => {
    const docs = fs
      .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => fs.readFileSync(path.join(ROOT, 'docs', f), 'utf8'))
      .join('\n');
    // In a code span: `NAME`, `NAME=value`, `NAME` / `OTHER`.
    const unnamed = Object.keys(configSchema.shape).filter((name) => !new RegExp(`\`${name}\\b`).test(docs));
    expect(unnamed).to.deep.equal([]);
  });

  it('applies defaults when nothing is set, with no signing key at all', () => {
    const cfg = loadConfig({});
    expect(cfg.PORT).to.equal(3000);
    expect(cfg.baseUrl).to.equal('http://localhost:3000');
    expect(cfg.DATABASE_URL).to.equal(undefined);
    expect(cfg.JWT_SIGNING_KEYS).to.equal(undefined);
    expect(cfg.LINK_SIGNING_KEY).to.equal(undefined);
    expect(cfg.TRUSTED_PROXIES).to.deep.equal([]);
  });

  it('parses several signing keys, the first one signing', () => {
    const cfg = apiConfig(
      loadConfig({ JWT_SIGNING_KEYS: `new:${'a'.repeat(32)},old:${'b'.repeat(32)}`, LINK_SIGNING_KEY: KEY }),
    );
    expect(cfg.JWT_SIGNING_KEYS.map((k) => k.kid)).to.deep.equal(['new', 'old']);
  });

  it('reads payload keys as a list, the first encrypting; the older single key is the key `default`', () => {
    const listed = payloadEncryptionKeys(
      loadConfig({ PAYLOAD_ENCRYPTION_KEYS: `b:${'b'.repeat(64)},a:${'a'.repeat(64)}` }),
    );
    expect(listed.map((k) => k.kid)).to.deep.equal(['b', 'a']);
    expect(listed[0]!.key).to.deep.equal(Buffer.alloc(32, 0xbb));
    const single = payloadEncryptionKeys(loadConfig({ PAYLOAD_ENCRYPTION_KEY: 'c'.repeat(64) }));
    expect(single).to.deep.equal([{ kid: 'default', key: Buffer.alloc(32, 0xcc) }]);
    expect(() => payloadEncryptionKeys(loadConfig({}))).to.throw(
      ConfigError,
      /PAYLOAD_ENCRYPTION_KEYS: is required/,
    );
  });

  it("lets the codec server answer the local Web UIs (dev server's, cluster's) unless other origins are configured", () => {
    expect(
      codecServerOrigins(loadConfig({ TEMPORAL_UI_PORT: '9233', TEMPORAL_CLUSTER_UI_PORT: '9235' })),
    ).to.deep.equal([
      'http://localhost:9233',
      'http://127.0.0.1:9233',
      'http://localhost:9235',
      'http://127.0.0.1:9235',
    ]);
    const set = loadConfig({
      CODEC_SERVER_UI_ORIGINS: 'https://temporal.example.com/, https://ops.example.com',
    });
    expect(codecServerOrigins(set)).to.deep.equal([
      'https://temporal.example.com',
      'https://ops.example.com',
    ]);
  });

  it('parses TRUSTED_PROXIES as addresses and CIDR blocks', () => {
    const cfg = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7,fd00::/8' });
    expect(cfg.TRUSTED_PROXIES).to.deep.equal(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    ['PORT', { PORT: 'eighty' }, /PORT/],
    ['PORT', { PORT: '70000' }, /PORT/],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL: must be a postgres:\/\/ URL/],
    [
      'DATABASE_SYSTEM_URL',
      { DATABASE_URL: 'postgres://gha_app:p@db/ghi' },
      /DATABASE_SYSTEM_URL: is required with DATABASE_URL \(the login of cross-tenant work, role gha_system\)/,
    ],
    [
      'DATABASE_URL',
      { DATABASE_SYSTEM_URL: 'postgres://gha_system:p@db/ghi' },
      /DATABASE_URL: is required with/,
    ],
    [
      'DATABASE_URL',
      {
        DATABASE_URL: 'postgres://ghi:p@db/ghi',
        DATABASE_SYSTEM_URL: 'postgres://gha_system:p@db/ghi',
        DATABASE_OWNER_URL: 'postgres://ghi:p@db/ghi',
      },
      /DATABASE_URL: must not log in as DATABASE_OWNER_URL's user/,
    ],
    [
      'DATABASE_SYSTEM_URL',
      { DATABASE_URL: 'postgres://gha_app:p@db/ghi', DATABASE_SYSTEM_URL: 'postgres://gha_app:p@db/ghi' },
      /DATABASE_SYSTEM_URL: must not log in as DATABASE_URL's user/,
    ],
    [
      'DATABASE_OWNER_URL',
      { DATABASE_OWNER_URL: 'mysql://x' },
      /DATABASE_OWNER_URL: must be a postgres:\/\/ URL/,
    ],
    ['JWT_SIGNING_KEYS', { JWT_SIGNING_KEYS: 'k1:short' }, /JWT_SIGNING_KEYS/],
    ['JWT_SIGNING_KEYS', { JWT_SIGNING_KEYS: `k1:${'a'.repeat(31)}` }, /JWT_SIGNING_KEYS: .*256 bits/],
    ['LINK_SIGNING_KEY', { LINK_SIGNING_KEY: 'l'.repeat(31) }, /LINK_SIGNING_KEY: must be at least 256 bits/],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.0/33' }, /TRUSTED_PROXIES: "10.0.0.0\/33" is not/],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: 'proxy.internal' }, /TRUSTED_PROXIES/],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    ['ENDORSEMENT_STUCK_AFTER', { ENDORSEMENT_STUCK_AFTER: 'a week' }, /ENDORSEMENT_STUCK_AFTER/],
    ['BASE_URL', { BASE_URL: 'not a url' }, /BASE_URL/],
    [
      'PAYLOAD_ENCRYPTION_KEYS',
      { PAYLOAD_ENCRYPTION_KEYS: `k1:${'a'.repeat(63)}` },
      /PAYLOAD_ENCRYPTION_KEYS/,
    ],
    ['PAYLOAD_ENCRYPTION_KEYS', { PAYLOAD_ENCRYPTION_KEYS: 'a'.repeat(64) }, /PAYLOAD_ENCRYPTION_KEYS/],
    ['PAYLOAD_ENCRYPTION_KEY', { PAYLOAD_ENCRYPTION_KEY: 'z'.repeat(64) }, /PAYLOAD_ENCRYPTION_KEY:/],
    ['CODEC_SERVER_TOKEN', { CODEC_SERVER_TOKEN: 'short' }, /CODEC_SERVER_TOKEN/],
  ];
  for (const [name, env, message] of bad) {
    it(`stops the start on a bad ${name}, naming the variable`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, message);
    });
  }

  it('gives the API no key of its own whatever NODE_ENV says, naming each missing variable', () => {
    for (const NODE_ENV of ['development', 'test', 'production']) {
      expect(() => apiConfig(loadConfig({ NODE_ENV }))).to.throw(
        ConfigError,
        /JWT_SIGNING_KEYS: is required[\s\S]*LINK_SIGNING_KEY: is required/,
      );
    }
    expect(() => apiConfig(loadConfig({ JWT_SIGNING_KEYS: `k:${KEY}` }))).to.throw(
      /LINK_SIGNING_KEY: is required/,
    );
  });

  it('stops `npm run api` without keys before it listens, naming the variables', function () {
    this.timeout(30_000);
    const env = { ...process.env, NODE_ENV: '', JWT_SIGNING_KEYS: '', LINK_SIGNING_KEY: '', PORT: '0' };
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
    });
    expect(run.status).to.not.equal(0);
    expect(run.stderr).to.match(/JWT_SIGNING_KEYS: is required/);
    expect(run.stderr).to.match(/LINK_SIGNING_KEY: is required/);
  });

  it('reads Temporal mTLS files, refusing a certificate without its key and an unreadable file', () => {
    expect(temporalTls(loadConfig({}))).to.equal(undefined);
    expect(() => loadConfig({ TEMPORAL_TLS_CERT: '/tmp/c.pem' })).to.throw(
      ConfigError,
      'TEMPORAL_TLS_KEY: is required with TEMPORAL_TLS_CERT',
    );
    expect(() => loadConfig({ TEMPORAL_TLS_KEY: '/tmp/k.pem' })).to.throw(ConfigError, 'TEMPORAL_TLS_CERT');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ghi-tls-config-'));
    try {
      for (const name of ['cert', 'key', 'ca']) fs.writeFileSync(path.join(dir, name), `${name} pem`);
      const files = {
        TEMPORAL_TLS_CERT: path.join(dir, 'cert'),
        TEMPORAL_TLS_KEY: path.join(dir, 'key'),
        TEMPORAL_TLS_CA: path.join(dir, 'ca'),
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      };
      expect(temporalTls(loadConfig(files))).to.deep.equal({
        serverNameOverride: 'temporal.internal',
        serverRootCACertificate: Buffer.from('ca pem'),
        clientCertPair: { crt: Buffer.from('cert pem'), key: Buffer.from('key pem') },
      });
      const missing = loadConfig({ ...files, TEMPORAL_TLS_CA: path.join(dir, 'nope') });
      expect(() => temporalTls(missing)).to.throw(
        ConfigError,
        /TEMPORAL_TLS_CA: cannot read .*nope \(ENOENT\)/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
