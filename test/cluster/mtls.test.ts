import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { expect } from 'chai';
import { loadConfig } from '../../config/index.js';
import {
  cliTlsFlags,
  clientTlsOptions,
  createCertificateAuthority,
  issueCertificate,
} from '../../infra/temporal-cluster-tls.js';
import { resolveTemporalCli, runCapturing } from '../../infra/temporal.js';
import { ENDORSEMENT_WORKFLOW } from '../../workflows/endorsement/contract.js';
import { stack } from '../support/stack.js';
import { runCluster } from './fault-run.js';

/**
 * The cluster's frontend requires mTLS: whoever reaches it without a client certificate of the
 * cluster's CA cannot list, signal or terminate anything. Each client tries one read of the namespace
 * (listing endorsement workflows) through the front door; only the service's certificate gets an answer.
 */
async function listEndorsements(tls: TLSConfig | undefined): Promise<string> {
  const { address, namespace } = runCluster();
  try {
    const connection = await Connection.connect({ address, tls, connectTimeout: 5_000 });
    try {
      const listed = await connection.withDeadline(Date.now() + 10_000, () =>
        connection.workflowService.listWorkflowExecutions({
          namespace,
          query: `WorkflowType = '${ENDORSEMENT_WORKFLOW}'`,
        }),
      );
      return `answered (${listed.executions.length} workflows)`;
    } finally {
      await connection.close();
    }
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

describe('Temporal cluster: mTLS on the frontend', () => {
  let otherCaDir: string;
  before(() => {
    otherCaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ghi-other-ca-'));
  });
  after(() => fs.rmSync(otherCaDir, { recursive: true, force: true }));

  const trustingServer = () => {
    const { serverNameOverride, serverRootCACertificate } = clientTlsOptions(runCluster().tls);
    return { serverNameOverride, serverRootCACertificate };
  };

  it("answers a client presenting the service's certificate (the one API, worker and commands use)", async () => {
    const fromConfig = loadConfig(process.env);
    expect(fromConfig.TEMPORAL_TLS_CERT, 'the stack runs with TEMPORAL_TLS_CERT').to.equal(
      runCluster().tls.clientCert,
    );
    expect(await listEndorsements(clientTlsOptions(runCluster().tls))).to.match(/^answered/);
  });

  it('refuses a plaintext client', async () => {
    expect(await listEndorsements(undefined)).to.match(/^refused/);
  });

  it('refuses a TLS client without a certificate, even one that trusts the cluster CA', async () => {
    expect(await listEndorsements(trustingServer())).to.match(/^refused/);
  });

  it('refuses a client whose certificate another CA signed (same name, same key usage)', async () => {
    const otherCa = await createCertificateAuthority(otherCaDir, 'cluster-ca');
    const forged = await issueCertificate(otherCa, otherCaDir, 'cluster-client', 'client');
    const tls = {
      ...trustingServer(),
      clientCertPair: { crt: fs.readFileSync(forged.cert), key: fs.readFileSync(forged.key) },
    };
    expect(await listEndorsements(tls)).to.match(/^refused/);
  });

  it('refuses a worker connection without a certificate', async () => {
    const refused = await NativeConnection.connect({ address: runCluster().address, tls: trustingServer() })
      .then(async (connection) => {
        await connection.close();
        return false;
      })
      .catch(() => true);
    expect(refused).to.equal(true);
  });

  it("refuses the temporal CLI without a certificate and answers it with the service's TEMPORAL_TLS_*", async function () {
    this.timeout(60_000);
    const cli = await resolveTemporalCli(stack().config.TEMPORAL_CLI_PATH);
    const health = ['operator', 'cluster', 'health', '--address', runCluster().address];
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_TLS')),
    );
    const without = await runCapturing([cli, ...health, '--command-timeout', '10s'], env);

    expect(without.code, without.output).to.not.equal(0);
    // The CLI reads the same variables (paths) as the service: one environment serves both.
    const withEnv = await runCapturing([cli, ...health], process.env);
    expect(withEnv.code, withEnv.output).to.equal(0);
    const withCert = await runCapturing([cli, ...health, ...cliTlsFlags(runCluster().tls)], env);
    expect(withCert.code, withCert.output).to.equal(0);
    expect(withCert.output).to.match(/SERVING/);
  });

  it('npm run temporal:setup registers the search attributes over mTLS with the service environment', async function () {
    this.timeout(120_000);
    const env = { ...process.env, TEMPORAL_ADDRESS: runCluster().address, LOG_LEVEL: 'silent' };
    const run = await runCapturing([process.execPath, '--import', 'tsx', 'scripts/temporal-setup.ts'], env);
    expect(run.code, run.output).to.equal(0);
    expect(run.output).to.match(/namespace default: \d+ search attributes registered \(.*EndorsementStatus/);
  });
});
