import vm from 'node:vm';
import v8 from 'node:v8';
import { expect } from 'chai';
import fc from 'fast-check';
import { client } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { report } from './report.js';
import { routeCatalogue, sampleBody, type OwnIds, type RouteInfo } from './routes.js';
import { idKindOf, seedTenant } from './tenants.js';

/**
 * Abuse 9: property-based fuzzing (fast-check) of every route of allRoutes() with random path ids,
 * query strings, headers, bodies built from the route's own fields, any JSON, huge and deeply nested
 * JSON, malformed text and wrong content types, with a valid token most of the time so requests get
 * past authentication into validation and the handlers. Pass: no 5xx, every JSON error body is the
 * spec's {type, title, detail, instance} (strings), and the heap after a full collection stays within
 * a bound of where it started.
 */

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

const RAW_SEGMENTS = [
  '%ZZ',
  '%',
  '%E0%A4%A',
  '..',
  '%2e%2e',
  '%00',
  '%2F',
  '%252F',
  '%C0%AF',
  '%F0%9F%92%A9',
  ' ',
  '~',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '*/*',
  'garbage',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
const visible = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 300,
});

/** Bodies of the sizes and shapes that break parsers: about 1 MiB, over it, and very deep. */
const hugeBody = fc.oneof(
  fc.integer({ min: 900_000, max: 1_100_000 }).map((n) => JSON.stringify({ name: 'x'.repeat(n) })),
  fc
    .integer({ min: 50_000, max: 150_000 })
    .map((n) => JSON.stringify({ employees: Array.from({ length: n }, () => ({ emp_id: 'e' })) })),
  fc
    .integer({ min: 33, max: 200_000 })
    .map((depth) => `{"employee_id":"x","type":${'['.repeat(depth)}${']'.repeat(depth)}}`),
  fc.integer({ min: 33, max: 50_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.constant(JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])))),
);

function fieldsBody(info: RouteInfo, own: OwnIds): fc.Arbitrary<string> {
  const fields = Object.keys(info.body?.properties ?? info.query?.properties ?? {});
  const sample = sampleBody(info, own) ?? {};
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom('', ' ', '\u0000', '2026-02-30', '-1', '1e309'),
  );
  const mutated = fc
    .record({ field: fc.constantFrom(...(fields.length ? fields : ['x'])), v: value })
    .map(({ field, v }) => JSON.stringify({ ...sample, [field]: v }));
  const random = fc
    .dictionary(fc.oneof(fc.constantFrom(...(fields.length ? fields : ['x'])), fc.string()), value)
    .map((d) => JSON.stringify(d));
  return fc.oneof(mutated, random);
}

function bodyArb(info: RouteInfo, own: OwnIds): fc.Arbitrary<string | Buffer | undefined> {
  return fc.oneof(
    { weight: 4, arbitrary: fieldsBody(info, own) },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: fc.string() },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
    { weight: 1, arbitrary: hugeBody },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

function pathArb(info: RouteInfo, own: OwnIds): fc.Arbitrary<string> {
  const segment = (name: string) =>
    fc.oneof(
      fc.constant(encodeURIComponent(own[idKindOf(name) ?? ''] ?? 'emp_x')),
      fc.string({ maxLength: 80 }).map(encodeURIComponent),
      fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent),
      fc.constantFrom(...RAW_SEGMENTS),
      fc.integer({ min: 65, max: 3000 }).map((n) => 'a'.repeat(n)),
    );
  if (info.params.length === 0) return fc.constant(info.def.path);
  return fc.tuple(...info.params.map(segment)).map((values) => {
    let i = 0;
    return info.def.path.replace(/:(\w+)(\([^)]*\))?\??/g, () => values[i++]!);
  });
}

function queryArb(info: RouteInfo): fc.Arbitrary<string> {
  const known = Object.keys(info.query?.properties ?? {});
  const key = fc.oneof(fc.constantFrom(...(known.length ? known : ['q'])), fc.string({ maxLength: 20 }));
  const value = fc.oneof(
    { weight: 8, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 4, arbitrary: fc.constantFrom('10000', '0', '-1', '1.5', '1e3', '', 'null', '[]', '%00') },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((n) => 'z'.repeat(n)) },
  );
  const pairs = fc
    .array(fc.tuple(key, value), { maxLength: 8 })
    .map((p) => new URLSearchParams(p).toString());
  const raw = fc.constantFrom(
    '%',
    '%ZZ',
    'a=%E0%A4%A',
    '&&&',
    '=',
    'limit=1&limit=2',
    'employee_id[]=x',
    '__proto__[x]=1',
  );
  return fc.oneof(pairs, raw).map((q) => (q ? `?${q}` : ''));
}

function requestArb(info: RouteInfo, own: OwnIds, token: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constant(info.def.method) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      path: pathArb(info, own),
      query: queryArb(info),
      body: bodyArb(info, own),
      contentType: fc.oneof(
        { weight: 4, arbitrary: fc.constant('application/json') },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        { weight: 1, arbitrary: visible },
      ),
      auth: fc.oneof(
        { weight: 6, arbitrary: fc.constant(`Bearer ${token}`) },
        { weight: 1, arbitrary: visible.map((v) => `Bearer ${v}`) },
        { weight: 1, arbitrary: fc.constant('') },
      ),
      idempotencyKey: fc.option(visible, { nil: undefined }),
      requestId: fc.option(visible, { nil: undefined }),
    })
    .map((r) => {
      const headers: Record<string, string> = { 'content-type': r.contentType };
      if (r.auth) headers.authorization = r.auth;
      if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
      if (r.requestId !== undefined) headers['x-request-id'] = r.requestId;
      const hasBody = !['GET', 'HEAD'].includes(r.method) && r.body !== undefined;
      return { method: r.method, path: `${r.path}${r.query}`, headers, ...(hasBody ? { body: r.body } : {}) };
    });
}

const ERROR_KEYS = ['detail', 'instance', 'title', 'type'];

/** Status and body shape of one answer; null when it passes. */
async function problemOf(
  url: string,
  req: FuzzRequest,
  seen: Record<number, number>,
): Promise<string | null> {
  const res = await fetch(`${url}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  seen[res.status] = (seen[res.status] ?? 0) + 1;
  if (res.status >= 500) return `${res.status} ${text.slice(0, 300)}`;
  if (res.status < 400 || req.method === 'HEAD') return null;
  // Node's HTTP parser answers a few malformed requests itself, before the app (431, 414, 400 without a body).
  if (!text && [400, 414, 431].includes(res.status)) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${res.status} error body is not JSON: ${text.slice(0, 200)}`;
  }
  const keys = Object.keys(body as object).sort();
  const shaped =
    JSON.stringify(keys) === JSON.stringify(ERROR_KEYS) &&
    ERROR_KEYS.every((k) => typeof (body as Record<string, unknown>)[k] === 'string');
  return shaped
    ? null
    : `${res.status} error body is not {type,title,detail,instance}: ${text.slice(0, 200)}`;
}

function collectGarbage(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

async function fuzzRoutes(
  url: string,
  own: OwnIds,
  token: string,
  numRuns: number,
  seen: Record<number, number>,
) {
  for (const info of routeCatalogue()) {
    await fc.assert(
      fc.asyncProperty(requestArb(info, own, token), async (req) => {
        const problem = await problemOf(url, req, seen);
        const shown = `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers).slice(0, 300)} body=${String(req.body).slice(0, 200)}`;
        expect(problem, shown).to.equal(null);
      }),
      { numRuns },
    );
  }
}

export async function fuzzEveryRoute(numRuns: number, heapBoundMiB: number): Promise<void> {
  // Fuzzed requests are outside any documented request; the property checks the answers' shape
  // itself, so they are kept out of the suite's API-reference check.
  const url = (await stack().startApi({ onResponse: undefined })).url;
  const tenant = await seedTenant(client(url), 'fz');
  const own: OwnIds = Object.fromEntries(Object.entries(tenant.ids).map(([k, v]) => [k, v[0]]));
  const gc = collectGarbage();
  // A first round warms code paths and caches (modules, fonts, compiled schemas); the heap is
  // measured around the second, so what stays is what requests leave behind.
  const seen: Record<number, number> = {};
  await fuzzRoutes(url, own, tenant.token, Math.max(5, Math.floor(numRuns / 5)), seen);
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  await fuzzRoutes(url, own, tenant.token, numRuns, seen);
  gc();
  const growthMiB = Math.round((process.memoryUsage().heapUsed - heapBefore) / 1048576);
  report('fuzz', {
    routes: routeCatalogue().length,
    requests: Object.values(seen).reduce((a, b) => a + b, 0),
    statuses: seen,
    heapGrowthMiB: growthMiB,
    rssMiB: Math.round(process.memoryUsage().rss / 1048576),
  });
  expect(growthMiB, 'heap growth after a full collection').to.be.lessThan(heapBoundMiB);
  // The API still answers normally afterwards.
  expect((await fetch(`${url}/healthz`)).status).to.equal(200);
}
