import { randomBytes } from 'node:crypto';
import type { InsurerAdapter } from '../../adapters/types.js';
import {
  createEndorsement,
  endorsementApi,
  waitFor,
  workflowState,
} from '../workflows/endorsement-support.js';
import {
  makeClient,
  makeEmployee,
  makePolicy,
  makeReferenceData,
  sql,
  type TestClient,
} from './factories.js';
import type { HttpClient } from './http.js';
import { stack } from './stack.js';

const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';

/** Stands in for the file cut-off: the endorsement counts as delivered once its submit returns. */
const deliveredByCutOff: InsurerAdapter = {
  async submit() {},
  async withdraw() {},
};

export interface FileInsurerEndorsements {
  code: string;
  insurerId: string;
  client: TestClient;
  token: string;
  api: HttpClient;
  policy: { id: string; policyNumber: string };
  /** ADDITION endorsements SENT_TO_INSURER, one employee each, in creation order. */
  endorsements: { id: string; employeeId: string }[];
  /** Puts back the worker's previous `file` adapter. */
  restore(): void;
}

/**
 * ONE place that gets a file insurer's endorsements to SENT_TO_INSURER: an insurer with adapter
 * `file` and the given settings (validated like a load), a policy, and `count` additions created
 * through the API. Until file insurers have their cut-off in the endorsement workflow, a no-op
 * `file` adapter is registered on the worker, so submission alone marks them sent.
 */
export async function sentFileInsurerEndorsements(o: {
  count: number;
  code?: string;
  settings?: Record<string, unknown>;
}): Promise<FileInsurerEndorsements> {
  const restore = stack().adapters.register('file', deliveredByCutOff);
  const code = o.code ?? `FILE${randomBytes(3).toString('hex').toUpperCase()}`;
  const client = await makeClient();
  const reference = await makeReferenceData(client.clientId, {
    adapter: 'file',
    adapterSettings: o.settings ?? {},
  });
  await sql('update insurers set code = ? where id = ?', [code, reference.insurerId]);
  const policy = await makePolicy(client.clientId, { reference, cdBalance: '10000000.00' });
  const api = await endorsementApi();
  const token = client.token();
  const endorsements: { id: string; employeeId: string }[] = [];
  for (let i = 0; i < o.count; i++) {
    const employee = await makeEmployee(client.clientId);
    const world = { client, token, api, policy, employee };
    endorsements.push({ id: await createEndorsement(world), employeeId: employee.id });
  }
  const ids = endorsements.map((e) => e.id);
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
  return { code, insurerId: reference.insurerId, client, token, api, policy, endorsements, restore };
}
