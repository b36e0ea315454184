import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { RouteDef } from '../../../api/route.js';
import { allRoutes } from '../../../api/routes/index.js';

/**
 * Every route of the service as the abuse sweeps see it: its path parameters, query fields and body
 * fields (read from its zod schemas, so a route added tomorrow is swept too), and a request that
 * passes validation, built from a small table for the routes known today and from the schema
 * (field names and formats) for any other.
 */
export interface RouteInfo {
  def: RouteDef;
  key: string;
  params: string[];
  query: JsonSchema | null;
  body: JsonSchema | null;
  write: boolean;
}

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: string[];
  format?: string;
  pattern?: string;
  anyOf?: JsonSchema[];
  required?: string[];
  maxLength?: number;
  minItems?: number;
}

const PARAM = /:(\w+)(\([^)]*\))?\??/g;

function toJson(schema: z.ZodType | undefined): JsonSchema | null {
  if (!schema) return null;
  try {
    const input = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    // A value normalised before its enum check (`entity` lower-cased) shows its enum on the output side.
    const output = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
    for (const [name, field] of Object.entries(input.properties ?? {})) {
      const values = output.properties?.[name]?.enum;
      if (!field.enum && values) field.enum = values;
    }
    return input;
  } catch {
    return {};
  }
}

export function routeCatalogue(): RouteInfo[] {
  return allRoutes().map((def) => ({
    def,
    key: `${def.method} ${def.path}`,
    params: [...def.path.matchAll(PARAM)].map((m) => m[1]!),
    query: toJson(def.query),
    body: toJson(def.body),
    write: def.method !== 'GET',
  }));
}

/** The route's path with each parameter replaced (values are URI-encoded). */
export function fillPath(def: RouteDef, values: Record<string, string>): string {
  return def.path.replace(PARAM, (_, name: string) => encodeURIComponent(values[name] ?? 'zz_unknown_0001'));
}

/** Ids of the calling tenant, by kind, to build requests that pass validation. */
export type OwnIds = Record<string, string | undefined>;

const unique = () => randomBytes(4).toString('hex');

/** Bodies that pass validation for the routes known today (anything else is built from its schema). */
const KNOWN_BODIES: Record<string, (own: OwnIds) => Record<string, unknown>> = {
  'POST /v1/auth/token': (own) => ({
    client_id: own.client,
    client_secret: 'not-the-secret',
    scopes: ['policy.all'],
  }),
  'POST /v1/client/employees': () => {
    const tag = unique();
    return {
      employee_id: `SWEEP-${tag}`,
      name: `Sweep Person ${tag}`,
      email: `sweep.${tag}@example.com`,
      phone_number: '+919800000001',
      date_of_birth: '1990-01-01',
      gender: 'GENDER_OTHER',
      status: 'EMPLOYEE_STATUS_ACTIVE',
    };
  },
  'PUT /v1/client/employees/:employee_id': () => ({ designation: 'Analyst' }),
  'PATCH /v1/client/employees/bulk': (own) => ({
    employees: [{ emp_id: own.employee, last_active_date: '2026-05-01' }],
  }),
  'POST /v1/client/employees/:employee_id/dependents': () => ({
    name: `Sweep Child ${unique()}`,
    relationship: 'CHILD',
    date_of_birth: '2015-02-03',
    gender: 'GENDER_FEMALE',
  }),
  'POST /v1/policy/endorsements': (own) => ({
    employee_id: own.employee,
    policy_id: own.policy,
    type: 'ADDITION',
    coverage_start_date: '2026-04-01',
    coverage_end_date: '2027-03-31',
  }),
  'POST /v1/policy/grant': (own) => ({
    employee_id: own.employee,
    policy_id: own.policy,
    start_date: '2026-05-01',
    end_date: '2027-03-31',
  }),
};

/** A value for one field, from its name and schema. */
export function sampleValue(name: string, s: JsonSchema, own: OwnIds): unknown {
  const schema = s.anyOf?.find((a) => a.type !== 'null') ?? s;
  if (schema.enum?.length) return schema.enum[0];
  if (name === 'client_id') return own.client;
  if (name.endsWith('_id')) return own[name.replace(/_id$/, '')] ?? own.employee;
  if (schema.format === 'email' || name.includes('email')) return `sweep.${unique()}@example.com`;
  if (name.includes('phone')) return '+919800000002';
  if (schema.format === 'date' || name.includes('date')) {
    if (name.includes('birth')) return '1990-01-01';
    return /end|to|until/.test(name) ? '2027-03-31' : '2026-05-01';
  }
  if (schema.format === 'uri' || name.includes('url')) return 'https://hooks.example.com/sweep';
  if (schema.type === 'array') return schema.items ? [sampleValue(name, schema.items, own)] : [];
  if (schema.type === 'object') return sampleObject(schema, own);
  if (schema.type === 'number' || schema.type === 'integer') return 1;
  if (schema.type === 'boolean') return true;
  return 'Sweep';
}

function sampleObject(schema: JsonSchema, own: OwnIds): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sampleValue(k, v, own)]),
  );
}

export function sampleBody(info: RouteInfo, own: OwnIds): Record<string, unknown> | undefined {
  if (!info.body) return undefined;
  const known = KNOWN_BODIES[info.key];
  return known ? known(own) : sampleObject(info.body, own);
}

/** Query fields the route requires, filled for the caller (client_id is the caller's own). */
export function sampleQuery(info: RouteInfo, own: OwnIds): Record<string, string> {
  const required = new Set(info.query?.required ?? []);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(info.query?.properties ?? {})) {
    if (required.has(k)) out[k] = String(sampleValue(k, v, own));
  }
  return out;
}

export const queryString = (q: Record<string, string>) => {
  const s = new URLSearchParams(q).toString();
  return s ? `?${s}` : '';
};

/** Routes a tenant's token reaches (the public health-card link and probes are swept separately). */
export const isProtected = (info: RouteInfo) => info.def.scopes !== 'public';
