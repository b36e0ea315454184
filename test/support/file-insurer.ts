import { randomBytes } from 'node:crypto';
import { flushInsurer } from '../../usecases/insurer-exchange/cut-off.js';
import {
  createEndorsement,
  endorsementApi,
  waitFor,
  workflowState,
} from '../workflows/endorsement-support.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makePolicy,
  makeReferenceData,
  sql,
  type TestClient,
} from './factories.js';
import type { HttpClient } from './http.js';
import { stack } from './stack.js';

const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';

export interface FileInsurerEndorsements {
  code: string;
  insurerId: string;
  client: TestClient;
  token: string;
  api: HttpClient;
  policy: { id: string; policyNumber: string };
  /** ADDITION endorsements SENT_TO_INSURER, one employee each, in creation order. */
  endorsements: { id: string; employeeId: string }[];
  /** Nothing left to undo since the real cut-off delivers (kept for the callers' cleanup). */
  restore(): void;
}

/**
 * ONE place that gets a file insurer's endorsements to SENT_TO_INSURER: an insurer with adapter
 * `file` and the given settings (validated like a load), a policy, and `count` additions created
 * through the API, then delivered by one real cut-off (`flushInsurer`, as `insurer flush` runs it) to
 * the insurer's transport.
 */
export async function sentFileInsurerEndorsements(o: {
  count: number;
  code?: string;
  settings?: Record<string, unknown>;
  /** An API (and the task queue its workflows and the cut-off run on) other than the run's own. */
  api?: HttpClient;
  taskQueue?: string;
  /** Dependents each employee has before the addition (covered per the policy's coverage type). */
  family?: (index: number) => Parameters<typeof makeDependent>[2][];
}): Promise<FileInsurerEndorsements> {
  const code = o.code ?? `FILE${randomBytes(3).toString('hex').toUpperCase()}`;
  const client = await makeClient();
  const reference = await makeReferenceData(client.clientId, {
    code,
    adapter: 'file',
    adapterSettings: o.settings ?? {},
  });
  const policy = await makePolicy(client.clientId, { reference, cdBalance: '10000000.00' });
  const api = o.api ?? (await endorsementApi());
  const token = client.token();
  const endorsements: { id: string; employeeId: string }[] = [];
  for (let i = 0; i < o.count; i++) {
    const employee = await makeEmployee(client.clientId);
    for (const d of o.family?.(i) ?? []) await makeDependent(client.clientId, employee.id, d);
    const world = { client, token, api, policy, employee };
    endorsements.push({ id: await createEndorsement(world), employeeId: employee.id });
  }
  const ids = endorsements.map((e) => e.id);
  const restore = () => undefined;
  const made = { code, insurerId: reference.insurerId, client, token, api, policy, endorsements, restore };
  if (ids.length === 0) return made;
  // Reviewed and queued for the cut-off, then the cut-off delivers the file and marks them sent.
  await waitFor(
    async () =>
      (
        await sql(
          'select count(*)::int as n from endorsements where id in (?) and cut_off_queued_at is not null',
          [ids],
        )
      )[0].n as number,
    (n) => n === ids.length,
    `${ids.length} endorsements waiting for the cut-off`,
  );
  const s = stack();
  const taskQueue = o.taskQueue ?? s.taskQueue;
  await flushInsurer({ em: s.orm.em.fork(), temporal: s.temporal, taskQueue }, code, new Date());
  await waitFor(
    async () =>
      (
        await sql('select count(*)::int as n from endorsements where id in (?) and status = ?', [ids, SENT])
      )[0].n as number,
    (n) => n === ids.length,
    `${ids.length} endorsements SENT_TO_INSURER`,
  );
  // Decisions count once the workflow's own state says submitted (right after the row).
  for (const id of ids)
    await waitFor(
      () => workflowState(id),
      (s) => s.status === SENT,
      `${id} submitted`,
    );
  return made;
}
