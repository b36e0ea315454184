import fs from 'node:fs';
import path from 'node:path';
import { temporalTls, type TemporalTls } from '../config/index.js';
import { runCapturing } from './processes.js';

/**
 * The cluster's mTLS material, made with openssl at each start: a CA of its own, one certificate the
 * nodes serve (and present to each other: internode traffic is mutual too) and one client certificate
 * for API, worker and commands. Keys are P-256, PKCS#8 PEM (what both Go and the SDK's rustls read),
 * files readable by their owner only. A client without a certificate of this CA is refused.
 */
export interface CertificateAuthority {
  cert: string;
  key: string;
}

export interface ClusterTls {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The name clients verify the server's certificate against (its SAN), whatever address they dial. */
  serverName: string;
}

export const CLUSTER_SERVER_NAME = 'temporal-cluster';
const DAYS = '30';
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(args: string[]): Promise<void> {
  const { code, output } = await runCapturing(['openssl', ...args], process.env);
  if (code !== 0) throw new Error(`openssl ${args[0]} failed (${code}): ${output}`);
}

export async function createCertificateAuthority(dir: string, name: string): Promise<CertificateAuthority> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ca = { cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}.key`) };
  await openssl([
    'req',
    '-x509',
    ...NEW_KEY,
    '-keyout',
    ca.key,
    '-out',
    ca.cert,
    '-days',
    DAYS,
    '-subj',
    `/O=group-health-admin/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  fs.chmodSync(ca.key, 0o600);
  return ca;
}

/** A leaf certificate signed by `ca`: `server` ones name the cluster (and loopback) and serve as clients too. */
export async function issueCertificate(
  ca: CertificateAuthority,
  dir: string,
  name: string,
  use: 'server' | 'client',
): Promise<{ cert: string; key: string }> {
  const issued = { cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}.key`) };
  const csr = path.join(dir, `${name}.csr`);
  const extensions = path.join(dir, `${name}.ext`);
  fs.writeFileSync(
    extensions,
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      use === 'server'
        ? `extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=DNS:${CLUSTER_SERVER_NAME},DNS:localhost,IP:127.0.0.1`
        : 'extendedKeyUsage=clientAuth',
      '',
    ].join('\n'),
  );
  await openssl([
    'req',
    ...NEW_KEY,
    '-keyout',
    issued.key,
    '-out',
    csr,
    '-subj',
    `/O=group-health-admin/CN=${name}`,
  ]);
  await openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-CAcreateserial',
    '-days',
    DAYS,
    '-extfile',
    extensions,
    '-out',
    issued.cert,
  ]);
  fs.chmodSync(issued.key, 0o600);
  fs.rmSync(csr);
  fs.rmSync(extensions);
  return issued;
}

export async function createClusterTls(dir: string): Promise<ClusterTls> {
  const ca = await createCertificateAuthority(dir, 'cluster-ca');
  const server = await issueCertificate(ca, dir, 'cluster-node', 'server');
  const client = await issueCertificate(ca, dir, 'cluster-client', 'client');
  return {
    ca: ca.cert,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
    serverName: CLUSTER_SERVER_NAME,
  };
}

/** The settings a process (API, worker, commands) needs to reach the cluster, as environment variables. */
export function clientTlsEnv(tls: ClusterTls): Record<string, string> {
  return {
    TEMPORAL_TLS_CERT: tls.clientCert,
    TEMPORAL_TLS_KEY: tls.clientKey,
    TEMPORAL_TLS_CA: tls.ca,
    TEMPORAL_TLS_SERVER_NAME: tls.serverName,
  };
}

/** The same for the `temporal` CLI, as flags. */
export function cliTlsFlags(tls: ClusterTls): string[] {
  return [
    '--tls-cert-path',
    tls.clientCert,
    '--tls-key-path',
    tls.clientKey,
    '--tls-ca-path',
    tls.ca,
    '--tls-server-name',
    tls.serverName,
  ];
}

/** The SDK's TLS options for a client of the cluster (the launcher's own checks and the tests). */
export function clientTlsOptions(tls: ClusterTls): TemporalTls {
  return temporalTls(clientTlsEnv(tls))!;
}
