import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { ensurePeriodicSchedules } from '../../../usecases/schedules.js';
import { endorsementWorkflowId } from '../../../workflows/endorsement/contract.js';
import { sql } from '../../support/factories.js';
import { client, type HttpResult } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { kill9, ownTarget, startApiProcess, stopChildren } from '../support/children.js';
import { additionBody, seedRun, waitAllFinal } from '../support/endorsement-run.js';
import { endReconcilers } from '../support/reconcilers.js';
import { report } from '../support/report.js';

/**
 * Fault 5: the API process (api/main.ts) is SIGKILLed while a POST /v1/policy/endorsements with an
 * Idempotency-Key is in flight, at delays spread from 0 to 1.5x a warm POST's latency, so the kill
 * lands before the key is claimed, between the claim and the row's commit, between the commit and
 * the workflow start, and after the answer is stored. The client then retries with the same key.
 * The retry goes to an API whose clock is 61 s ahead: it stands for a client retrying after the
 * 60 s in which an unanswered claim is still honoured. The reconciler runs with a 5 s grace (60 s
 * in production). Pass, for every round: exactly one endorsement for the request, exactly one
 * workflow, and it ends APPROVED; the retry answers 200 with that endorsement's id, or 409
 * Endorsement In Progress naming it.
 */
const ROUNDS = 8;

describe('resilience: API process killed mid-POST, the client retries with the same key', () => {
  after(async function () {
    this.timeout(60_000);
    await stopChildren();
    await endReconcilers(stack().temporal);
  });

  it('makes one endorsement and one workflow per request whatever the moment of the kill', async function () {
    this.timeout(600_000);
    const taskQueue = stack().taskQueue;
    await endReconcilers(stack().temporal);
    await ensurePeriodicSchedules(stack().temporal, taskQueue, { intervalMs: 2000, graceMs: 5000 });
    const world = await seedRun(ROUNDS + 1);
    const target = ownTarget(taskQueue);
    const ahead = { now: () => new Date(Date.now() + 61_000) };
    const retryApi = client((await stack().startApi({ clock: ahead })).url);

    // A warm POST's latency sets the spread of the kill delays.
    const warm = await startApiProcess(target);
    await client(warm.url).get('/readyz');
    const t = performance.now();
    const first = await client(warm.url).post('/v1/policy/endorsements', {
      token: world.token,
      body: additionBody(world, world.employeeIds[0]!),
    });
    const latency = performance.now() - t;
    expect(first.status, first.text).to.equal(200);
    await kill9(warm);

    const rounds: Record<string, unknown>[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const employeeId = world.employeeIds[i]!;
      const key = `kill-${employeeId}`;
      const api = await startApiProcess(target);
      await client(api.url).get('/readyz');
      await client(api.url).get('/v1/auth/session', { token: world.token });
      const delay = Math.round(((i - 1) / (ROUNDS - 1)) * 1.5 * latency);
      const inFlight = client(api.url)
        .post('/v1/policy/endorsements', {
          token: world.token,
          body: additionBody(world, employeeId),
          headers: { 'Idempotency-Key': key },
        })
        .catch((err: unknown): HttpResult => ({
          status: 0,
          body: null,
          headers: new Headers(),
          text: String(err),
        }));
      await sleep(delay);
      await kill9(api);
      const answered = await inFlight;
      const window = await windowOf(world.client.clientId, key, employeeId);

      let retry: HttpResult;
      const deadline = Date.now() + 60_000;
      do {
        retry = await retryApi.post('/v1/policy/endorsements', {
          token: world.token,
          body: additionBody(world, employeeId),
          headers: { 'Idempotency-Key': key },
        });
      } while (
        (retry.status === 503 || retry.body?.title === 'Request In Progress') &&
        Date.now() < deadline
      );

      const rows = await sql('select id from endorsements where client_id = ? and employee_id = ?', [
        world.client.clientId,
        employeeId,
      ]);
      const id = rows[0]?.id as string | undefined;
      rounds.push({
        delayMs: delay,
        answeredBeforeKill: answered.status,
        ...window,
        retry: `${retry.status} ${retry.body?.title ?? ''}`.trim(),
      });
      expect(rows, `round ${i}`).to.have.length(1);
      if (retry.status === 200) expect(retry.body.payload.endorsement_id).to.equal(id);
      else {
        expect(retry.status, retry.text).to.equal(409);
        expect(retry.body).to.include({ title: 'Endorsement In Progress' });
        expect(retry.body.detail).to.contain(id);
      }
    }

    const open = await waitAllFinal(world, 120_000);
    const ids = (await sql('select id, status from endorsements where client_id = ?', [
      world.client.clientId,
    ])) as {
      id: string;
      status: string;
    }[];
    // The row says APPROVED a workflow task before the run closes: read until every run has closed.
    const closed = () =>
      Promise.all(
        ids.map((r) =>
          stack()
            .temporal.workflow.getHandle(endorsementWorkflowId(r.id))
            .describe()
            .then((d) => d.status.name),
        ),
      );
    let workflows = await closed();
    for (let t = 0; t < 60 && workflows.some((s) => s === 'RUNNING'); t++) {
      await sleep(500);
      workflows = await closed();
    }
    report('API SIGKILL mid-POST', { warmPostMs: Math.round(latency), rounds });
    expect(open).to.equal(0);
    expect(ids).to.have.length(ROUNDS + 1);
    expect(ids.every((r) => r.status === 'ENDORSEMENT_STATUS_APPROVED')).to.equal(true);
    expect(workflows.every((s) => s === 'COMPLETED')).to.equal(true);
  });
});

/** Where the kill left the request: its key's claim, its row, its workflow. */
async function windowOf(clientId: string, key: string, employeeId: string) {
  const [claim] = await sql(
    'select response_status from idempotency_records where client_id = ? and key = ?',
    [clientId, key],
  );
  const [row] = await sql(
    'select id, workflow_started_at from endorsements where client_id = ? and employee_id = ?',
    [clientId, employeeId],
  );
  const workflow = row
    ? await stack()
        .temporal.workflow.getHandle(endorsementWorkflowId(row.id as string))
        .describe()
        .then(
          () => true,
          () => false,
        )
    : false;
  const stage = !claim
    ? 'before the claim'
    : !row
      ? 'claimed, no row'
      : !workflow
        ? 'row committed, no workflow'
        : claim.response_status === null
          ? 'workflow started, answer not stored'
          : 'answer stored';
  return { stage };
}
