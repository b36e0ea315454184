import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { client, type HttpClient, type HttpResult } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { report } from '../support/report.js';
import {
  fillPath,
  queryString,
  routeCatalogue,
  sampleBody,
  sampleQuery,
  type OwnIds,
  type RouteInfo,
} from '../support/routes.js';
import {
  idKindOf,
  seedTenant,
  settledSnapshot,
  ownParam,
  tenantSnapshot,
  type SeededTenant,
} from '../support/tenants.js';

/**
 * Abuse 12, BOLA (D1): client A's token against every route of allRoutes() with every id of client
 * B in every id slot (path parameters, query fields, body fields, nested ones too) and B's paging
 * cursor. Pass: each answer is byte-for-byte the answer for an id nobody has (the id itself
 * replaced on both sides), no answer carries any of B's distinctive values or any other id of B,
 * and B's data is unchanged (its token counter aside: naming an existing client counts, D4).
 */

/** Fields that look like references but are the caller's own labels (the client's employee code). */
const NOT_REFERENCES: Record<string, string[]> = { 'POST /v1/client/employees': ['employee_id'] };

interface Slot {
  where: 'path' | 'query' | 'body';
  /** Field name, or the body path (`employees.0.emp_id`). */
  name: string;
  kind: string;
}

function slotsOf(info: RouteInfo, own: OwnIds): Slot[] {
  const skip = NOT_REFERENCES[info.key] ?? [];
  const slots: Slot[] = [];
  for (const p of info.params) {
    const kind = idKindOf(p);
    if (kind) slots.push({ where: 'path', name: p, kind });
  }
  for (const q of Object.keys(info.query?.properties ?? {})) {
    const kind = q.endsWith('_cursor') ? 'cursor' : idKindOf(q);
    if (kind) slots.push({ where: 'query', name: q, kind });
  }
  const walk = (value: unknown, path: string[]) => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, String(i)]));
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const kind = idKindOf(k);
        if (kind && typeof v === 'string' && !skip.includes(k))
          slots.push({ where: 'body', name: [...path, k].join('.'), kind });
        else walk(v, [...path, k]);
      }
    }
  };
  walk(sampleBody(info, own), []);
  return slots;
}

function setPath(target: Record<string, unknown>, path: string, value: string): void {
  const keys = path.split('.');
  let node: any = target;
  for (const k of keys.slice(0, -1)) node = node[k];
  node[keys.at(-1)!] = value;
}

/** B's values to try in a slot: its ids of that kind (every id for an untyped `*_id`), or its cursor. */
function candidates(slot: Slot, b: SeededTenant): string[] {
  if (slot.kind === 'cursor') return [b.cursor];
  if (slot.kind === 'any') return Object.values(b.ids).flat();
  return b.ids[slot.kind] ?? [];
}

/** An id of the same shape that nobody has (same prefix), or a cursor-like string of the same length. */
function unknownLike(value: string, kind: string): string {
  if (kind === 'cursor') return randomBytes(value.length).toString('base64url').slice(0, value.length);
  const prefix = value.split('_')[0];
  return `${prefix}_${randomBytes(16)
    .toString('hex')
    .slice(0, value.length - prefix!.length - 1)}`;
}

async function send(
  http: HttpClient,
  info: RouteInfo,
  own: OwnIds,
  token: string,
  slot: Slot,
  value: string,
): Promise<HttpResult> {
  const params: Record<string, string> = {};
  for (const p of info.params) params[p] = ownParam(p, own);
  const query = sampleQuery(info, own);
  const body = sampleBody(info, own);
  if (slot.where === 'path') params[slot.name] = value;
  if (slot.where === 'query') query[slot.name] = value;
  if (slot.where === 'body') setPath(body!, slot.name, value);
  const path = fillPath(info.def, params) + queryString(query);
  return http.send(info.def.method, path, { token, ...(body ? { body } : {}) });
}

const normalised = (r: HttpResult, value: string) =>
  `${r.status} ${r.text.split(value).join('<ID>').split(encodeURIComponent(value)).join('<ID>')}`;

describe('resilience: BOLA sweep, one tenant’s token against every id of another (D1)', () => {
  let http: HttpClient;
  let a: SeededTenant;
  let b: SeededTenant;

  before(async function () {
    this.timeout(60_000);
    http = client((await stack().startApi()).url);
    a = await seedTenant(http, 'a');
    b = await seedTenant(http, 'b');
  });

  it('answers every route with B’s ids exactly as with unknown ids, and never shows B’s data', async function () {
    this.timeout(240_000);
    const own: OwnIds = Object.fromEntries(Object.entries(a.ids).map(([k, v]) => [k, v[0]]));
    const before = await settledSnapshot(b.client.clientId, ['token_issues']);
    const differences: string[] = [];
    const leaks: string[] = [];
    const bIds = Object.values(b.ids).flat();
    let requests = 0;
    const routes = routeCatalogue();
    const swept = new Set<string>();

    // Control: the same slots with A's own ids reach A's data (the sweep is not refused wholesale).
    const ownOk = new Set<string>();
    for (const info of routes) {
      for (const slot of slotsOf(info, own)) {
        const mine = slot.kind === 'cursor' ? a.cursor : own[slot.kind];
        if (!mine || info.write) continue;
        if ((await send(http, info, own, a.token, slot, mine)).status === 200) ownOk.add(info.key);
      }
    }

    for (const info of routes) {
      for (const slot of slotsOf(info, own)) {
        for (const value of candidates(slot, b)) {
          const foreign = await send(http, info, own, a.token, slot, value);
          const unknown = unknownLike(value, slot.kind);
          const control = await send(http, info, own, a.token, slot, unknown);
          requests += 2;
          swept.add(info.key);
          const label = `${info.key} ${slot.where}:${slot.name}=${value}`;
          if (normalised(foreign, value) !== normalised(control, unknown)) {
            differences.push(
              `${label}\n    B: ${normalised(foreign, value)}\n    ?: ${normalised(control, unknown)}`,
            );
          }
          for (const secret of [...b.values, ...bIds.filter((id) => id !== value)]) {
            if (foreign.text.includes(secret)) leaks.push(`${label} shows ${secret}`);
          }
          expect(foreign.status, label).to.be.lessThan(500);
        }
      }
    }
    const after = await tenantSnapshot(b.client.clientId, ['token_issues']);
    report('BOLA sweep', {
      routes: routes.length,
      routesWithIdSlots: swept.size,
      readRoutesAnswering200WithOwnIds: ownOk.size,
      requests,
      bIds: bIds.length,
      differences: differences.length,
      leaks: leaks.length,
    });
    expect(differences, differences.join('\n')).to.deep.equal([]);
    expect(leaks, leaks.join('\n')).to.deep.equal([]);
    expect(after).to.deep.equal(before);
    // Every route that takes an id was swept (the sweep would pick up a new one), and the reads
    // that take one answered A's own ids.
    for (const info of routes) {
      if (info.params.some((p) => idKindOf(p))) expect(swept, info.key).to.include(info.key);
      // An insurer principal's reads answer insurers, not tenants (test/api/insurer-backlog.test.ts
      // sweeps another insurer's ids against unknown ones).
      const tenantRead = !info.write && info.def.scopes !== 'public' && info.def.principal !== 'insurer';
      if (info.params.some((p) => idKindOf(p)) && tenantRead) {
        expect(ownOk, info.key).to.include(info.key);
      }
    }
  });
});
