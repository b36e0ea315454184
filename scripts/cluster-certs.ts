import path from 'node:path';
import { clientTlsEnv, createClusterTls } from '../infra/temporal-cluster-tls.js';

/**
 * `npm run cluster:certs -- DIR`: the CA and certificates `npm run cluster` makes, written to DIR, for
 * a trial of docker-compose.yml (mounted as /certs). Production takes them from its own PKI.
 */
const dir = process.argv[2];
if (!dir) {
  console.error('usage: npm run cluster:certs -- DIR');
  process.exit(2);
}
const tls = await createClusterTls(path.resolve(dir));
console.log(
  [
    `CA ${tls.ca}; node certificate ${tls.serverCert} (server name ${tls.serverName}); client ${tls.clientCert}`,
    ...Object.entries(clientTlsEnv(tls)).map(([k, v]) => `${k}=${v}`),
  ].join('\n'),
);
