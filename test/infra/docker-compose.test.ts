import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { loadConfig } from '../../config/index.js';
import { dynamicConfig } from '../../infra/temporal-cluster-config.js';
import { CLUSTER_SERVER_NAME, type ClusterTls } from '../../infra/temporal-cluster-tls.js';
import { TEMPORAL_SERVER_VERSION } from '../../infra/temporal-server-binaries.js';
import { uiEnvironment } from '../../infra/temporal-ui.js';
import { TEMPORAL_UI_VERSION } from '../../infra/temporal-ui-server.js';

/**
 * docker-compose.yml cannot run here (no Docker engine); what it promises is read from the file: the
 * Temporal release the cluster tests run, mTLS settings on every client of the frontend, nothing that
 * reaches Temporal published, and the UI only behind the authenticating proxy.
 */
interface Service {
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  command?: string[];
  volumes?: string[];
}
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const compose = YAML.parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), {
  merge: true,
}) as { services: Record<string, Service> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('runs the Temporal release the cluster tests run, on PostgreSQL for visibility too, with mTLS required', () => {
    const temporal = services.temporal!;
    expect(temporal.image).to.equal(`temporalio/auto-setup:${TEMPORAL_SERVER_VERSION.slice(1)}`);
    expect(temporal.environment).to.include({
      DB: 'postgres12',
      ENABLE_ES: 'false',
      TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: 'true',
    });
  });

  it('gives the server the dynamic config the cluster tests run (eager activities among it)', () => {
    const temporal = services.temporal!;
    const file = 'deploy/temporal-dynamic-config.yaml';
    const mounted = `/etc/temporal/${temporal.environment!.DYNAMIC_CONFIG_FILE_PATH}`;
    expect(temporal.volumes).to.include(`./${file}:${mounted}:ro`);
    expect(YAML.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'))).to.deep.equal(
      YAML.parse(dynamicConfig()),
    );
    expect(YAML.parse(dynamicConfig())).to.have.nested.property(
      'system\\.enableActivityEagerExecution[0].value',
      true,
    );
  });

  it('gives API, worker, setup step and Web UI a client certificate, the CA and the server name', () => {
    for (const name of ['api', 'worker', 'temporal-setup', 'temporal-ui']) {
      const env = services[name]!.environment!;
      for (const key of [
        'TEMPORAL_TLS_CERT',
        'TEMPORAL_TLS_KEY',
        'TEMPORAL_TLS_CA',
        'TEMPORAL_TLS_SERVER_NAME',
      ])
        expect(env[key], `${name} ${key}`).to.be.a('string').and.not.equal('');
    }
  });

  it('registers the search attributes in a setup step that API and worker wait for', () => {
    expect(services['temporal-setup']!.command).to.deep.equal(['npm', 'run', 'temporal:setup']);
    for (const name of ['api', 'worker']) {
      expect(services[name]!.depends_on).to.deep.include({
        'temporal-setup': { condition: 'service_completed_successfully' },
      });
    }
  });

  it('publishes neither the frontend nor the UI itself; the UI only through the authenticating proxy', () => {
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p]));
    expect(published.filter(([, p]) => /7233/.test(p!))).to.deep.equal([]);
    expect(services['temporal-ui']!.ports).to.equal(undefined);
    expect(services['ui-proxy']!.ports).to.deep.equal(['127.0.0.1:8233:8080']);
    const caddyfile = fs.readFileSync(path.join(ROOT, 'deploy', 'Caddyfile'), 'utf8');
    expect(caddyfile).to.match(/basic_auth \{\s*\{\$UI_PROXY_USER\} \{\$UI_PROXY_PASSWORD_HASH\}/);
    expect(caddyfile).to.match(/reverse_proxy temporal-ui:8080/);
  });

  it('runs the Web UI release and settings the cluster test ran (mTLS with host verification, codec endpoint)', () => {
    const ui = services['temporal-ui']!;
    expect(ui.image).to.equal(`temporalio/ui:${TEMPORAL_UI_VERSION.slice(1)}`);
    const certs: ClusterTls = {
      ca: '/certs/cluster-ca.pem',
      clientCert: '/certs/cluster-client.pem',
      clientKey: '/certs/cluster-client.key',
      serverCert: '/certs/cluster-node.pem',
      serverKey: '/certs/cluster-node.key',
      serverName: CLUSTER_SERVER_NAME,
    };
    const codec = services['codec-server']!.environment!;
    const tested = uiEnvironment({
      address: 'temporal:7233',
      namespace: 'default',
      port: 8080,
      tls: certs,
      codecEndpoint: `http://localhost:${codec.CODEC_SERVER_PORT}/\${CODEC_SERVER_TOKEN}`,
    });
    const env = ui.environment!;
    // Each variable the tested UI is given, compose gives, and no other TEMPORAL_* one.
    expect(Object.keys(env).sort()).to.deep.equal(Object.keys(tested).sort());
    // The same values, but for its origins: the proxy's, the ones the codec server answers.
    const sameValues = Object.entries(tested).filter(([key]) => key !== 'TEMPORAL_CORS_ORIGINS');
    expect(env).to.deep.include(Object.fromEntries(sameValues));
    expect(env.TEMPORAL_CORS_ORIGINS).to.equal(codec.CODEC_SERVER_UI_ORIGINS);
  });

  it('has no default for any password or secret: every one is ${VAR:?message}, so compose refuses to start without it', () => {
    const text = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    const references = [...text.matchAll(/\$\{([A-Z0-9_]+)([^}]*)\}/g)].map(([, name, rest]) => ({
      name: name!,
      rest: rest!,
    }));
    const secret = /PASSWORD|PWD|SECRET|KEYS?$|TOKEN/;
    const secrets = references.filter((r) => secret.test(r.name));
    expect(secrets.map((r) => r.name)).to.include.members([
      'POSTGRES_PASSWORD',
      'TEMPORAL_DB_PASSWORD',
      'GHA_APP_DB_PASSWORD',
      'GHA_SYSTEM_DB_PASSWORD',
    ]);
    // The codec endpoint names the token as the UI's own template variable, not compose's.
    const composeOwn = secrets.filter((r) => !(r.name === 'CODEC_SERVER_TOKEN' && r.rest === ''));
    for (const r of composeOwn) expect(`${r.name}${r.rest}`).to.match(/^[A-Z0-9_]+:\?\S/);
    expect(text).not.to.match(/change-me/);
  });

  it("gives the owner's login to the migrate step alone; API and worker log in as the service's two roles after it", () => {
    const user = (url: string | undefined) =>
      url ? new URL(url.replace(/\$\{[^}]*\}/g, 'x')).username : null;
    const migrate = services.migrate!.environment!;
    expect(services.migrate!.command).to.deep.equal(['npm', 'run', 'migrate']);
    expect(
      [migrate.DATABASE_OWNER_URL, migrate.DATABASE_URL, migrate.DATABASE_SYSTEM_URL].map(user),
    ).to.deep.equal(['ghi', 'gha_app', 'gha_system']);
    for (const name of ['api', 'worker']) {
      const env = services[name]!.environment!;
      expect(env.DATABASE_OWNER_URL, name).to.equal(undefined);
      expect(env.DATABASE_URL, name).to.equal(migrate.DATABASE_URL);
      expect(env.DATABASE_SYSTEM_URL, name).to.equal(migrate.DATABASE_SYSTEM_URL);
      expect(services[name]!.depends_on).to.deep.include({
        migrate: { condition: 'service_completed_successfully' },
      });
    }
    // With the variables set, the service's configuration accepts the logins as compose writes them.
    const filled = (url: string) => url.replace(/\$\{[^}]*\}/g, 'a1b2c3');
    expect(() =>
      loadConfig({
        DATABASE_URL: filled(migrate.DATABASE_URL!),
        DATABASE_SYSTEM_URL: filled(migrate.DATABASE_SYSTEM_URL!),
        DATABASE_OWNER_URL: filled(migrate.DATABASE_OWNER_URL!),
      }),
    ).not.to.throw();
  });

  it('publishes no host port on the worker, the service meant to be scaled', () => {
    expect(services.worker!.ports).to.equal(undefined);
  });
});
