import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import YAML from 'yaml';
import { loadReferenceData } from '../../../usecases/reference-load.js';
import { loadFileSchema } from '../../../domain/schemas/reference-load.js';
import { flushInsurer } from '../../../usecases/insurer-exchange/cut-off.js';
import { cutOffWorkflowId } from '../../../workflows/insurer-cut-off/contract.js';
import { makeClient, makeEmployee, sql } from '../../support/factories.js';
import { client as http } from '../../support/http.js';
import { deleteCutOffSchedules, deletePeriodicSchedules } from '../../support/schedules.js';
import { closeSftpServer, startSftpServer, type SftpServer } from '../../support/sftp-server.js';
import { stack } from '../../support/stack.js';
import { kill9, ownTarget, startWorker, stopChildren, type Child } from '../support/children.js';
import { report } from '../support/report.js';

const PER_POLICY = 20;
const POLICIES = ['KILL/GH/2026/0001', 'KILL/GH/2026/0002'];

const loadFile = (code: string, server: SftpServer, keyFile: string) => `
insurers:
  - code: ${code}
    name: Killed Cut-off Insurer
    logo_url: https://assets.example.com/kill.png
    adapter: file
    adapter_settings:
      template: generic
      formats: [csv, xlsx]
      transport:
        type: sftp
        host: ${server.host}
        port: ${server.port}
        username: ${server.username}
        private_key_path: ${keyFile}
        host_key_fingerprint: ${server.hostKeySha256}
        remote_outbox_dir: ${server.remoteDir}
        remote_inbox_dir: ${server.remoteDir}
tpas:
  - { code: MEDI, name: Medi Assist }
products:
  - { code: KILL-GH, name: Kill Group Health, category: Group Health, insurer: ${code} }
policies:
${POLICIES.map(
  (p) => `  - policy_number: ${p}
    insurer: ${code}
    product: KILL-GH
    tpa: MEDI
    net_premium: 100000
    gross_premium: 118000
    coverage_type: COVERAGE_TYPE_E
    type: POLICY_TYPE_INDIVIDUAL
    status: POLICY_STATUS_ACTIVE
    start_date: '2026-04-01'
    end_date: '2027-03-31'
    slabs:
      - { sum_insured: 300000, annual_premium: 3650 }
    cd_balance: 5000000`,
).join('\n')}
`;

/**
 * D14, worker killed during a cut-off: 40 endorsements of one file insurer over two policies wait
 * for the cut-off; the SFTP server is down when it starts, the worker is SIGKILLed while the delivery
 * retries, the server comes back, and the next worker is SIGKILLed as soon as the first file lands.
 * Pass: one file per policy and format, every endorsement in exactly one policy's file, every one
 * SENT_TO_INSURER exactly once.
 */
describe('resilience: worker SIGKILLed during a file insurer cut-off', () => {
  let server: SftpServer;
  let keyDir: string;
  const code = `KL${randomBytes(3).toString('hex').toUpperCase()}`;

  before(async () => {
    server = await startSftpServer();
    keyDir = mkdtempSync(path.join(os.tmpdir(), 'cut-off-kill-key-'));
  });
  after(async () => {
    await stopChildren();
    await deletePeriodicSchedules(stack().temporal);
    await deleteCutOffSchedules(stack().temporal, [code]);
    await closeSftpServer(server, keyDir);
  });

  it('leaves every endorsement in exactly one delivered file, sent once', async function () {
    this.timeout(600_000);
    const keyFile = path.join(keyDir, 'id_ed25519');
    writeFileSync(keyFile, server.privateKey, { mode: 0o600 });
    const taskQueue = `cut-off-kill-${stack().runId}`;
    const target = ownTarget(taskQueue);
    const api = http(
      (await stack().startApi({ config: { ...stack().config, TEMPORAL_TASK_QUEUE: taskQueue } })).url,
    );
    const client = await makeClient();
    const file = loadFileSchema.parse(YAML.parse(loadFile(code, server, keyFile)));
    const loaded = await loadReferenceData(stack().orm.em.fork(), client.clientId, file);
    let worker: Child = await startWorker(target);

    const ids: string[] = [];
    const byPolicy = new Map<string, string[]>();
    for (const policy of POLICIES) {
      const policyId = loaded.policies[policy]!;
      for (let i = 0; i < PER_POLICY; i++) {
        const employee = await makeEmployee(client.clientId);
        const res = await api.post('/v1/policy/endorsements', {
          token: client.token(),
          body: {
            employee_id: employee.id,
            policy_id: policyId,
            type: 'ADDITION',
            coverage_start_date: '2026-04-01',
            coverage_end_date: '2027-03-31',
          },
        });
        expect(res.status, res.text).to.equal(200);
        ids.push(res.body.payload.endorsement_id);
        byPolicy.set(policy, [...(byPolicy.get(policy) ?? []), res.body.payload.endorsement_id]);
      }
    }
    const waiting = async () =>
      Number(
        (
          await sql(
            `select count(*) as n from endorsements where id in (${ids.map(() => '?').join(', ')})
               and status = 'ENDORSEMENT_STATUS_PENDING' and cut_off_queued_at is not null`,
            ids,
          )
        )[0].n,
      );
    for (const deadline = Date.now() + 120_000; (await waiting()) < ids.length; await sleep(200)) {
      if (Date.now() > deadline) throw new Error(`only ${await waiting()} of ${ids.length} queued`);
    }

    await server.stop();
    const now = new Date();
    const cutOff = new Date(Math.ceil(now.getTime() / 1000) * 1000);
    const flushing = flushInsurer(
      { em: stack().orm.em.fork(), temporal: stack().temporal, taskQueue },
      code,
      now,
    );
    const batch = stack().temporal.workflow.getHandle(cutOffWorkflowId(code, cutOff));
    for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
      const attempt = (await batch.describe().catch(() => null))?.raw.pendingActivities?.[0]?.attempt ?? 0;
      if (attempt >= 2) break;
      if (Date.now() > deadline) throw new Error('the delivery was not retried');
    }
    // Kill 1: while the delivery retries against the down server.
    await kill9(worker);
    worker = await startWorker(target);
    await server.start();
    // Kill 2: as soon as the first file lands (the batch is between its deliveries).
    const ours = () => readdirSync(server.remoteDir).filter((f) => f.startsWith(`${code}_`));
    for (const deadline = Date.now() + 120_000; ours().length === 0; await sleep(5)) {
      if (Date.now() > deadline) throw new Error('no file delivered');
    }
    const filesAtKill = ours().length;
    await kill9(worker);
    worker = await startWorker(target);

    const result = await flushing;
    const names = result.files.map((f) => f.file_name).sort();
    report('cut-off worker SIGKILL', { endorsements: ids.length, kills: 2, filesAtSecondKill: filesAtKill });
    expect(names).to.have.length(POLICIES.length * 2);
    expect(ours().sort()).to.deep.equal(names);
    // Each policy's CSV carries exactly its endorsements; no endorsement in two files.
    const seen = new Map<string, string>();
    for (const f of result.files.filter((x) => x.format === 'csv')) {
      const rows: string[][] = parse(readFileSync(path.join(server.remoteDir, f.file_name)));
      const refs = rows.slice(1).map((r) => r[0]!);
      expect(new Set(refs).size).to.equal(refs.length);
      expect([...refs].sort()).to.deep.equal([...byPolicy.get(f.policy_number)!].sort());
      for (const ref of refs) {
        expect(seen.has(ref), `${ref} in ${f.file_name} and ${seen.get(ref)}`).to.equal(false);
        seen.set(ref, f.file_name);
      }
    }
    expect(seen.size).to.equal(ids.length);
    const statuses = await sql(
      `select status, count(*) as n from endorsements where id in (${ids.map(() => '?').join(', ')}) group by status`,
      ids,
    );
    expect(statuses.map((r) => [r.status, Number(r.n)])).to.deep.equal([
      ['ENDORSEMENT_STATUS_SENT_TO_INSURER', ids.length],
    ]);
    const [audit] = await sql(
      `select count(*) as n, count(distinct entity_id) as d from audit_events
        where action = 'sent_to_insurer' and entity_id in (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    expect([Number(audit.n), Number(audit.d)]).to.deep.equal([ids.length, ids.length]);
  });
});
