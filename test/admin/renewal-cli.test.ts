import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { makeClient, makeEmployee, makeMember, makePolicy } from '../support/factories.js';
import { client as http } from '../support/http.js';
import { stack, TEST_KEYS } from '../support/stack.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** `npm run -s admin -- …` as an operator runs it, against this run's database and Temporal. */
async function admin(...args: string[]): Promise<{ code: number; out: any; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ...TEST_KEYS,
          ...stack().databaseEnv,
          TEMPORAL_ADDRESS: stack().temporalAddress,
          TEMPORAL_TASK_QUEUE: stack().taskQueue,
        },
      },
    );
    return { code: 0, out: JSON.parse(stdout), err: stderr };
  } catch (e) {
    const failure = e as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: null, err: (JSON.parse(failure.stderr) as { error: string }).error };
  }
}

describe('admin renewal commands (D17)', function () {
  // Six commands, each a process of its own that loads the service and migrates first.
  this.timeout(300_000);

  it("opens a renewal early with the insurer's quote, once, and takes a later quote while DRAFT", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'renewal-quote-'));
    const client = await makeClient();
    const policy = await makePolicy(client.clientId);
    const employee = await makeEmployee(client.clientId);
    await makeMember(client.clientId, policy.id, employee, { uhid: 'UHID-Q' });
    let workflowId: string | undefined;
    try {
      const later = path.join(dir, 'later.json');
      await fs.writeFile(
        later,
        JSON.stringify({ slabs: [{ sum_insured: '300000', annual_premium: '4100.50' }] }),
      );
      const none = await admin('renewal:quote', policy.id, later);
      expect(none.code, none.err).to.equal(2);
      expect(none.err).to.equal(`no renewal is open for policy ${policy.id}`);

      const bad = path.join(dir, 'bad.yaml');
      await fs.writeFile(
        bad,
        'slabs:\n  - sum_insured: "300000"\n    annual_premium: "4000"\ndefault_sum_insured: "900000"\n',
      );
      const refused = await admin('renewal:start', policy.id, '--quote', bad);
      expect(refused.code).to.equal(2);
      expect(refused.err).to.contain('default_sum_insured: must be one of the slabs');

      const good = path.join(dir, 'quote.yaml');
      await fs.writeFile(
        good,
        'end_date: "2028-03-30"\nslabs:\n  - sum_insured: "300000"\n    annual_premium: "4000"\n',
      );
      const started = await admin('renewal:start', policy.id, '--quote', good);
      expect(started.code, started.err).to.equal(0);
      expect(started.out).to.deep.include({
        policy_id: policy.id,
        status: 'DRAFT',
        quote_loaded: true,
        next_term: { start_date: '2027-04-01', end_date: '2028-03-30' },
        workflow_id: `renewal-${policy.id}-2027-03-31`,
      });
      const again = await admin('renewal:start', policy.id);
      expect(again.out.renewal_id).to.equal(started.out.renewal_id);
      const described = await stack().temporal.workflow.getHandle(started.out.workflow_id).describe();
      expect(described.status.name).to.equal('RUNNING');
      workflowId = started.out.workflow_id;

      const api = http((await stack().startApi()).url);
      const draft = await api.get(`/v1/policy/${policy.id}/renewal`, { token: client.token() });
      expect(draft.status).to.equal(200);
      expect(draft.body.payload.renewal).to.include({ premium_before: 3650, premium_after: 4000 });

      const quoted = await admin('renewal:quote', policy.id, later);
      expect(quoted.code, quoted.err).to.equal(0);
      expect(quoted.out.next_term).to.deep.equal({ start_date: '2027-04-01', end_date: '2028-03-31' });
      const requoted = await api.get(`/v1/policy/${policy.id}/renewal`, { token: client.token() });
      expect(requoted.body.payload.renewal.premium_after).to.equal(4100.5);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
      // The draft's workflow would go on by the shared worker's clock, which later tests move years
      // ahead (and the daily renewal pass they run nudges every open renewal): it ends with this test.
      if (workflowId) await stack().temporal.workflow.getHandle(workflowId).terminate('end of test');
    }
  });
});
