import { z } from 'zod';
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { methodNotAllowed, type ApiError } from '../errors.js';
import { IDEMPOTENCY_KEY } from '../idempotency.js';
import { shadowedMethods, type RouteDef, type ShadowedMethod } from '../route.js';
import { answerHeaders, errorSchemaFor, REQUEST_ID_HEADER, routeContract } from './contract.js';

type Parameters = NonNullable<RouteConfig['request']>['params'];

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** `/v1/policy/:policy_id` -> `/v1/policy/{policy_id}` (koa-router's parameters to OpenAPI's). */
export const openApiPath = (koaPath: string): string => koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Sections of the reference, matched on path prefixes, most specific first. */
const TAGS: { prefix: string; name: string; description: string }[] = [
  { prefix: '/v1/auth', name: 'Authentication', description: 'Tokens (spec 4.1, 5; D2 to D4).' },
  { prefix: '/v1/audit', name: 'Audit', description: 'Who changed what, when.' },
  {
    prefix: '/v1/policy/endorsements',
    name: 'Endorsements',
    description: 'Add or remove an employee on a policy; processed by a workflow (spec 4.9, 4.10; D7, D8).',
  },
  {
    prefix: '/v1/policy/grant',
    name: 'Grants',
    description: 'Grant a policy to an employee (spec 4.12; D9).',
  },
  {
    prefix: '/v1/policy/coverage',
    name: 'Coverage',
    description: 'Active coverage and health cards (spec 4.11; D10).',
  },
  {
    prefix: '/v1/policy',
    name: 'Policies',
    description: 'Policies and their members (spec 4.2 to 4.4; D5).',
  },
  {
    prefix: '/v1/client/employees/:employee_id/dependents',
    name: 'Dependents',
    description: 'Dependents of an employee, enrolled beside the employee by an ADDITION.',
  },
  { prefix: '/v1/client/employees', name: 'Employees', description: 'Employees (spec 4.5 to 4.8; D6).' },
  {
    prefix: '/v1/insurer',
    name: 'Insurers',
    description:
      'Called by insurers, with an insurer principal’s token: what waits for them and their decisions (D14).',
  },
];
const OPERATIONS_TAG = {
  name: 'Operations',
  description: 'Health checks, this reference and metrics; no bearer token.',
};

const tagOf = (def: RouteDef) => TAGS.find((t) => def.path.startsWith(t.prefix))?.name ?? OPERATIONS_TAG.name;

const API_DESCRIPTION = `Group health insurance administration for an employer (the client): policies, members,
employees, endorsements, grants and coverage.

- Every endpoint except token generation takes \`Authorization: Bearer <access_token>\`; each operation
  lists the scopes that admit it (any one of them) under **Scopes** and in \`x-scopes\`.
- A success is HTTP 200 with \`{"payload": ...}\`; an error is \`{type, title, detail, instance}\`.
- Dates are \`YYYY-MM-DD\` (Asia/Kolkata); money is a JSON number in INR; ids are opaque strings.
- Every request gets an \`X-Request-Id\` answer header (or keeps the one it sent) for support.`;

/** Answer headers, declared once as components; an answer names the ones it always carries. */
interface Header {
  description: string;
  required?: boolean;
  schema: { type: 'string' | 'integer'; minimum?: number; enum?: string[] };
}
const HEADERS = {
  'X-Request-Id': {
    description:
      'The request id: the `X-Request-Id` the request sent, or one the service assigned. Quote it to support.',
    required: true,
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description: 'The scheme to authenticate with: `Bearer`.',
    required: true,
    schema: { type: 'string' },
  },
  Allow: {
    description: 'The methods this path takes.',
    required: true,
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when this answer replays the first answer given to the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
} satisfies Record<string, Header>;
type HeaderName = keyof typeof HEADERS;

function headerName(name: string): HeaderName {
  if (!(name in HEADERS)) throw new Error(`the answer header ${name} is not described in HEADERS`);
  return name as HeaderName;
}

const headerRefs = (names: readonly HeaderName[]) =>
  Object.fromEntries(names.map((h) => [h, { $ref: `#/components/headers/${h}` }]));

/** `Idempotency-Key` as the routes with `idempotencyKey` read it (see withIdempotency). */
const idempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .regex(IDEMPOTENCY_KEY)
    .optional()
    .meta({
      description:
        'Optional: a retry with the same key and body within 24 h answers the first answer again ' +
        '(`Idempotent-Replayed: true`) instead of acting twice; 1 to 255 visible ASCII characters.',
    }),
});

/** Names one error for the examples of its status: `Policy Not Found`, `Validation Failed`. */
function errorResponse(
  errors: readonly ApiError[],
  path: string,
  headers: readonly string[],
): ResponseConfig {
  const examples = Object.fromEntries(
    errors.map((e) => [
      e.title,
      {
        summary: `${e.type}: ${e.title}`,
        value: { type: e.type, title: e.title, detail: e.detail, instance: path },
      },
    ]),
  );
  return {
    description: errors.map((e) => e.title).join('; '),
    headers: headerRefs(headers.map(headerName)),
    content: { 'application/json': { schema: errorSchemaFor(errors), examples } },
  };
}

function scopesText(def: RouteDef): string {
  return def.scopes === 'public'
    ? 'Public: no bearer token.'
    : `**Scopes** (any one of): ${def.scopes.map((s) => `\`${s}\``).join(', ')}`;
}

function routeConfig(def: RouteDef): RouteConfig {
  const path = openApiPath(def.path);
  const contract = routeContract(def);
  const responses: Record<string, ResponseConfig> = {};
  if (contract.success) {
    // A route answering 202 (work accepted) may answer 200 too (a dry run): both carry its payload schema.
    for (const status of new Set([200, def.successStatus ?? 200])) {
      responses[String(status)] = {
        description: contract.success.description,
        headers: headerRefs([
          ...answerHeaders(contract, 200).map(headerName),
          ...(contract.idempotent ? (['Idempotent-Replayed'] as const) : []),
        ]),
        content: {
          [contract.success.contentType]: { schema: contract.success.body },
          ...Object.fromEntries(
            contract.success.alternatives.map((a) => [a.contentType, { schema: a.body }]),
          ),
        },
      };
    }
  }
  for (const [status, errors] of contract.errors) {
    responses[String(status)] = errorResponse(errors, path, answerHeaders(contract, status));
  }
  return {
    method: def.method.toLowerCase() as RouteConfig['method'],
    path,
    operationId: def.operationId,
    tags: [tagOf(def)],
    summary: def.summary,
    description: [def.description, scopesText(def)].filter(Boolean).join('\n\n'),
    // D2 in the document: the route's scopes as roles of the bearer scheme, one alternative each.
    security: def.scopes === 'public' ? [] : def.scopes.map((scope) => ({ bearerAuth: [scope] })),
    'x-scopes': def.scopes === 'public' ? [] : [...def.scopes],
    request: {
      params: def.params as Parameters | undefined,
      query: def.query as Parameters | undefined,
      headers: contract.idempotent ? idempotencyKeyHeader : undefined,
      body: def.body
        ? {
            required: true,
            content: {
              'application/json': { schema: def.body },
              // An upload route's files, read as they are (its description says what they hold).
              ...Object.fromEntries(
                (def.uploads ?? []).map((t) => [t, { schema: z.string().meta({ format: 'binary' }) }]),
              ),
            },
          }
        : undefined,
    },
    responses,
  };
}

/**
 * A method a static path refuses rather than pass to a parameterised sibling (see shadowedMethods),
 * named after the path's own operation: `PUT` on bulkUpdateEmployees' path is `bulkUpdateEmployeesPutNotAllowed`.
 */
function notAllowedConfig(
  { method, path, allowed }: ShadowedMethod,
  routes: readonly RouteDef[],
): RouteConfig {
  const owner = routes.find((r) => r.path === path)!;
  const refusal = methodNotAllowed(allowed);
  return {
    method: method.toLowerCase() as RouteConfig['method'],
    path: openApiPath(path),
    operationId: `${owner.operationId}${method[0]}${method.slice(1).toLowerCase()}NotAllowed`,
    tags: [tagOf(owner)],
    summary: `Not allowed: use ${allowed.join(', ')}`,
    description: `This path does not take ${method}: 405 with \`Allow: ${allowed.join(', ')}\` (it is not read as a path parameter of another route).`,
    security: [],
    responses: {
      '405': errorResponse([refusal], openApiPath(path), [
        REQUEST_ID_HEADER,
        ...Object.keys(refusal.headers),
      ]),
    },
  };
}

export interface DocumentOptions {
  /** config.baseUrl: where "Try it out" sends requests. */
  serverUrl: string;
}

/** The OpenAPI 3.1 document of these routes, generated from the zod schemas the routes validate and answer with. */
export function buildOpenApiDocument(routes: readonly RouteDef[], options: DocumentOptions): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token from POST /v1/auth/token; valid for 3600 s.',
  });
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', name, header);
  for (const def of routes) registry.registerPath(routeConfig(def));
  for (const shadowed of shadowedMethods(routes)) registry.registerPath(notAllowedConfig(shadowed, routes));
  const used = new Set(routes.map(tagOf));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Group Health Insurance Administration API', version: '1', description: API_DESCRIPTION },
    servers: [{ url: options.serverUrl }],
    tags: [...TAGS, OPERATIONS_TAG]
      .filter((t) => used.has(t.name))
      .map(({ name, description }) => ({ name, description })),
  });
}
