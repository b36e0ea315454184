import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createLogger } from '../../../infra/logger.js';
import { allRoutes } from '../../../api/routes/index.js';
import { endorsementWorkflowId } from '../../../workflows/endorsement/contract.js';
import { makeClient, makePolicy, makeReferenceData, sql, type TestClient } from '../../support/factories.js';
import { client, type HttpClient } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { ownTarget, startWorker, stopChildren, type Child } from '../support/children.js';
import { FINAL_STATUSES } from '../support/endorsement-run.js';
import { needles, person, scanHistories, type Person } from '../support/personal-data.js';
import { endReconcilers } from '../support/reconcilers.js';
import { report } from '../support/report.js';

/**
 * Data protection 15: personal data never travels through Temporal nor reaches the logs. Employees
 * with distinctive personal data are created, updated and given dependents through the API; their
 * endorsements are approved, rejected and cancelled by the simulated insurer and a worker process;
 * a grant is requested when the route exists. Faults are injected where an error would carry the
 * data: a database trigger fails the approval's insert (the statement holds the member's name)
 * until the activity has retried, and fails an employee update in the API (a 500 whose statement
 * holds the new address). Pass: no seeded name, email, phone, date of birth or address in any event
 * history of the run (read through the Temporal client), in any workflow's user metadata (summaries
 * and details the Web UI shows, decoded), in the API's log (pino on a captured
 * stream, debug level) or in the worker's output (debug level, SDK lines included).
 */
const PEOPLE = 5;

describe('resilience: personal data stays out of Temporal and the logs', () => {
  let http: HttpClient;
  let acme: TestClient;
  let token: string;
  let worker: Child;
  const apiLog: string[] = [];
  const people: Person[] = Array.from({ length: PEOPLE }, (_, i) => person(i, i === 1 ? 'REJECT' : 'PD'));
  let since: Date;
  let taskQueue: string;

  before(async function () {
    this.timeout(180_000);
    since = new Date();
    taskQueue = `pii-${stack().runId}`;
    const logger = createLogger('debug', { write: (line: string) => void apiLog.push(line) });
    http = client(
      (await stack().startApi({ logger, config: { ...stack().config, TEMPORAL_TASK_QUEUE: taskQueue } })).url,
    );
    worker = await startWorker(ownTarget(taskQueue), {
      LOG_LEVEL: 'debug',
      SIMULATED_INSURER_DELAY_MS: '1500',
    });
    acme = await makeClient();
    token = acme.token();
  });
  after(async function () {
    this.timeout(60_000);
    await sql('drop trigger if exists pii_fault on policy_members').catch(() => undefined);
    await sql('drop trigger if exists pii_fault_employee on employees').catch(() => undefined);
    await stopChildren();
    await endReconcilers(stack().temporal);
  });

  async function createPeople(): Promise<string[]> {
    const ids: string[] = [];
    for (const p of people) {
      const res = await http.post('/v1/client/employees', {
        token,
        body: {
          employee_id: p.employeeCode,
          name: p.name,
          email: p.email,
          phone_number: p.phone,
          date_of_birth: p.dateOfBirth,
          gender: 'GENDER_FEMALE',
          address: p.address,
          personal_email: p.personalEmail,
          personal_phone_number: p.personalPhone,
          status: 'EMPLOYEE_STATUS_ACTIVE',
        },
      });
      expect(res.status, res.text).to.equal(200);
      const id = res.body.payload.employee_id as string;
      ids.push(id);
      const dep = await http.post(`/v1/client/employees/${id}/dependents`, {
        token,
        body: {
          name: p.dependentName,
          relationship: 'SPOUSE',
          date_of_birth: p.dependentBirth,
          gender: 'GENDER_MALE',
        },
      });
      expect(dep.status, dep.text).to.equal(200);
      const upd = await http.put(`/v1/client/employees/${id}`, {
        token,
        body: { address: p.address, designation: 'Lead' },
      });
      expect(upd.status, upd.text).to.equal(200);
    }
    const bulk = await http.patch('/v1/client/employees/bulk', {
      token,
      body: { employees: ids.map((emp_id) => ({ emp_id, last_active_date: '2026-06-01' })) },
    });
    expect(bulk.status).to.equal(200);
    return ids;
  }

  /** Fails every insert into policy_members for one employee until dropped. */
  const failApprovalsOf = (employeeId: string) =>
    sql(`create or replace function pii_fault() returns trigger language plpgsql as $$
           begin if new.employee_id = '${employeeId}' then raise exception 'injected fault'; end if; return new; end $$;
         create trigger pii_fault before insert on policy_members for each row execute function pii_fault()`);

  async function waitForRetries(endorsementId: string): Promise<string> {
    const handle = stack().temporal.workflow.getHandle(endorsementWorkflowId(endorsementId));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      const retried = pending.find((a) => (a.attempt ?? 0) >= 3);
      if (retried) return retried.lastFailure?.message ?? '';
      if (Date.now() > deadline) throw new Error('the injected fault did not make the approval retry');
      await sleep(200);
    }
  }

  it('finds none of the seeded personal data in any event history or log line', async function () {
    this.timeout(300_000);
    const reference = await makeReferenceData(acme.clientId, { adapter: 'simulated' });
    const policy = await makePolicy(acme.clientId, { reference, coverageType: 'COVERAGE_TYPE_ES' });
    const ids = await createPeople();

    // An API failure whose statement carries personal data: the log must not.
    await sql(`create or replace function pii_fault_employee() returns trigger language plpgsql as $$
                 begin raise exception 'injected fault'; end $$;
               create trigger pii_fault_employee before update on employees for each row
                 when (new.id = '${ids[0]}') execute function pii_fault_employee()`);
    const failed = await http.put(`/v1/client/employees/${ids[0]}`, {
      token,
      body: { address: `${people[0]!.address} B` },
    });
    await sql('drop trigger pii_fault_employee on employees');
    expect(failed.status).to.equal(500);

    await failApprovalsOf(ids[0]!);
    const endorsements: string[] = [];
    for (const id of ids) {
      const res = await http.post('/v1/policy/endorsements', {
        token,
        headers: { 'Idempotency-Key': `pii-${id}` },
        body: {
          employee_id: id,
          policy_id: policy.id,
          type: 'ADDITION',
          coverage_start_date: '2026-04-01',
          coverage_end_date: '2027-03-31',
        },
      });
      expect(res.status, res.text).to.equal(200);
      endorsements.push(res.body.payload.endorsement_id);
    }
    const cancel = await http.post(`/v1/policy/endorsements/${endorsements[2]}/cancel`, { token });
    expect(cancel.status, cancel.text).to.equal(200);
    const lastFailure = await waitForRetries(endorsements[0]!);
    await sql('drop trigger pii_fault on policy_members');
    if (allRoutes().some((r) => r.method === 'POST' && r.path === '/v1/policy/grant')) {
      const grant = await http.post('/v1/policy/grant', {
        token,
        body: { employee_id: ids[3], start_date: '2026-05-01', end_date: '2027-03-31' },
      });
      expect(grant.status, grant.text).to.be.lessThan(500);
    }

    const deadline = Date.now() + 120_000;
    for (;;) {
      const [row] = await sql(
        'select count(*)::int as open from endorsements where client_id = ? and status not in (?)',
        [acme.clientId, FINAL_STATUSES],
      );
      if (row.open === 0) break;
      if (Date.now() > deadline) throw new Error(`${row.open} endorsements still open`);
      await sleep(500);
    }
    const statuses = await sql(
      'select status, count(*)::int as n from endorsements where client_id = ? group by 1',
      [acme.clientId],
    );
    await sleep(1000); // the last log lines and history events

    const search = needles(people);
    const histories = await scanHistories(stack().temporal, since, search);
    const logText = apiLog.join('');
    const workerText = worker.output.join('');
    const logHits = search.filter((n) => logText.includes(n));
    const workerHits = search.filter((n) => workerText.includes(n));
    report('personal data', {
      seededValues: search.length,
      endorsements: Object.fromEntries(statuses.map((r) => [r.status, r.n])),
      workflowsScanned: histories.workflows,
      eventsScanned: histories.events,
      historyBytes: histories.bytes,
      apiLogLines: apiLog.length,
      workerLogBytes: workerText.length,
      injectedActivityFailure: lastFailure.slice(0, 120),
      userMetadataTexts: histories.userMetadata.length,
      hits: histories.hits.length + logHits.length + workerHits.length,
    });
    expect(histories.workflows).to.be.greaterThan(PEOPLE);
    // The sweep read the user metadata: every endorsement's summary names its employee by code.
    const metadata = histories.userMetadata.join('\n');
    for (const p of people) expect(metadata, 'user metadata read').to.contain(`employee ${p.employeeCode}`);
    expect(metadata, 'current details read').to.contain('insurer last said:');
    expect(workerText, 'the worker logged the failed attempts').to.contain('Activity failed');
    expect(logText, 'the API logged the failed request').to.contain('request failed');
    expect(histories.hits, 'Temporal histories').to.deep.equal([]);
    expect(logHits, 'API log').to.deep.equal([]);
    expect(workerHits, 'worker output').to.deep.equal([]);
  });
});
