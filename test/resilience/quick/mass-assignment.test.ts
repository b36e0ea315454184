import { expect } from 'chai';
import { bulkUpdateItem } from '../../../domain/schemas/employees.js';
import { client, type HttpClient } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { report } from '../support/report.js';
import {
  fillPath,
  queryString,
  routeCatalogue,
  sampleBody,
  sampleQuery,
  type JsonSchema,
  type OwnIds,
} from '../support/routes.js';
import {
  seedTenant,
  settledSnapshot,
  ownParam,
  tenantSnapshot,
  tokenFor,
  type SeededTenant,
} from '../support/tenants.js';

/**
 * Abuse 13, mass assignment (D6 strict bodies): every write route of allRoutes() gets its valid
 * request plus one field it does not take (`client_id`, `id`, `status`, `cd_balance`, `is_admin`),
 * at the top level and inside every nested object. Pass: 400 VALIDATION_ERROR naming the field
 * (a bulk item fails alone, D6: 200 with that item failed), and the tenant's data unchanged.
 */
const EXTRA: Record<string, (b: SeededTenant) => unknown> = {
  client_id: (b) => b.client.clientId,
  id: () => 'emp_chosenbythecaller0000',
  status: () => 'ENDORSEMENT_STATUS_APPROVED',
  cd_balance: () => 999999999,
  is_admin: () => true,
};

/** Every object inside a body (the body itself first), with its path. */
function objectsOf(value: unknown, path: string[] = []): { path: string[]; node: Record<string, unknown> }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => objectsOf(v, [...path, String(i)]));
  if (!value || typeof value !== 'object') return [];
  const node = value as Record<string, unknown>;
  return [{ path, node }, ...Object.entries(node).flatMap(([k, v]) => objectsOf(v, [...path, k]))];
}

/** Fields of bulk items, which the body schema leaves open because each item is checked on its own (D6). */
const ITEM_FIELDS: Record<string, string[]> = {
  'PATCH /v1/client/employees/bulk': Object.keys(bulkUpdateItem.shape),
};

/** The documented schema of the object at a body path (array items by index), when the route names one. */
function schemaAt(schema: JsonSchema | null, path: string[]): JsonSchema | undefined {
  return path.reduce<JsonSchema | undefined>(
    (node, key) => (/^\d+$/.test(key) ? node?.items : node?.properties?.[key]),
    schema ?? undefined,
  );
}

describe('resilience: mass assignment on every write route (D6)', () => {
  let http: HttpClient;
  let a: SeededTenant;
  let b: SeededTenant;

  before(async function () {
    this.timeout(60_000);
    http = client((await stack().startApi()).url);
    a = await seedTenant(http, 'ma');
    b = await seedTenant(http, 'mb');
  });

  it('refuses every extra field with 400 naming it and changes nothing', async function () {
    this.timeout(120_000);
    const own: OwnIds = Object.fromEntries(Object.entries(a.ids).map(([k, v]) => [k, v[0]]));
    const before = await settledSnapshot(a.client.clientId);
    const failures: string[] = [];
    let requests = 0;
    const writes = routeCatalogue().filter((r) => r.write);
    for (const info of writes) {
      const params = Object.fromEntries(info.params.map((p) => [p, ownParam(p, own)]));
      const path = fillPath(info.def, params) + queryString(sampleQuery(info, own));
      const base = sampleBody(info, own) ?? {};
      for (const target of objectsOf(base)) {
        for (const [field, value] of Object.entries(EXTRA)) {
          // The route takes this field here (its schema names it, or the valid request has it).
          const takes = [
            ...Object.keys(schemaAt(info.body, target.path)?.properties ?? target.node),
            ...(target.path.length > 0 ? (ITEM_FIELDS[info.key] ?? []) : []),
          ];
          if (takes.includes(field)) continue;
          const body = structuredClone(base);
          const node = target.path.reduce<any>((n, k) => n[k], body);
          node[field] = value(b);
          const res = await http.send(info.def.method, path, { token: tokenFor(a, info.def), body });
          requests++;
          const label = `${info.key} ${[...target.path, field].join('.')}`;
          const named = `${[...target.path, field].join('.')}: is not an allowed field`;
          const itemFailed =
            res.status === 200 &&
            Array.isArray(res.body?.payload?.results) &&
            res.body.payload.results.every(
              (r: { success: boolean; error?: string }) =>
                !r.success && r.error?.includes(`${field}: is not an allowed field`),
            );
          const refused =
            res.status === 400 && res.body?.type === 'VALIDATION_ERROR' && res.body.detail.includes(named);
          if (!refused && !(target.path.length > 0 && itemFailed))
            failures.push(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
        }
      }
    }
    const after = await tenantSnapshot(a.client.clientId);
    report('mass assignment', { writeRoutes: writes.length, requests, accepted: failures.length });
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(after).to.deep.equal(before);
  });
});
