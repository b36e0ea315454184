import type { OutgoingHttpHeaders } from 'node:http';
import { z } from 'zod';
import {
  bodyTooLarge,
  insufficientScope,
  malformedJson,
  serviceUnavailable,
  unauthorized,
  unexpectedError,
  unsupportedMediaType,
  validationError,
  type ApiError,
} from '../errors.js';
import { IDEMPOTENCY_ERRORS } from '../idempotency.js';
import { isRawResponse, type RouteDef } from '../route.js';

/**
 * What each route answers, derived from its definition alone: the success body, and every error by
 * status. The OpenAPI document is generated from this, and the tests check real answers against it,
 * so the reference and the service are held to one description.
 */

/** D11: every error body. */
export const errorBodySchema = z
  .object({
    type: z.string().meta({ description: 'Error code', example: 'NOT_FOUND' }),
    title: z.string().meta({ description: 'Brief description', example: 'Policy Not Found' }),
    detail: z.string().meta({ description: 'Detailed message; may be empty', example: '' }),
    instance: z.string().meta({ description: 'Path of the request', example: '/v1/policy/pol_x' }),
  })
  .meta({ id: 'Error', description: 'Every error answer (spec 7, D11).' });

/** D11: a success answer wraps the payload. */
export const envelope = (payload: z.ZodType) => z.object({ payload });

export interface SuccessContract {
  contentType: string;
  /** The whole body: `{payload}` for JSON payload routes, the raw schema otherwise. */
  body: z.ZodType;
  /** The payload schema itself (the component the document names), for JSON payload routes. */
  payload?: z.ZodType;
  description: string;
  /** Other media types the success may answer in (by `Accept`), each with its body schema. */
  alternatives: { contentType: string; body: z.ZodType }[];
}

export interface RouteContract {
  success: SuccessContract | null;
  /** Every error the route may answer, grouped by HTTP status, in status order. */
  errors: Map<number, ApiError[]>;
  /** The route honours `Idempotency-Key`: a replayed success says so in `Idempotent-Replayed`. */
  idempotent: boolean;
}

/** Every answer carries it (api/middleware/request.ts). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The headers every answer of one status carries: the request id, and the ones all its errors set. */
export function answerHeaders(contract: RouteContract, status: number): string[] {
  const errors = contract.errors.get(status) ?? [];
  const shared = Object.keys(errors[0]?.headers ?? {}).filter((h) => errors.every((e) => h in e.headers));
  return [REQUEST_ID_HEADER, ...shared];
}

const SAMPLE_RULE = '<field>: <rule>';

/** The errors a route gives by how it is declared, before its own: auth, input, infrastructure (D2, D11). */
export function sharedErrors(def: RouteDef): ApiError[] {
  const errors: ApiError[] = [];
  if (def.scopes !== 'public') errors.push(unauthorized(), insufficientScope(def.scopes));
  // Every route refuses a query parameter it does not declare or one given twice (parseQuery).
  errors.push(def.invalidQuery ? def.invalidQuery(SAMPLE_RULE) : validationError(SAMPLE_RULE));
  // Path parameters (NUL characters) and a body on a write without a body schema (parseNoBody).
  if (def.params !== undefined || (def.method !== 'GET' && def.body === undefined)) {
    errors.push(validationError(SAMPLE_RULE));
  }
  if (def.body) {
    errors.push(validationError(SAMPLE_RULE), malformedJson(), bodyTooLarge(), unsupportedMediaType());
  }
  if (def.scopes !== 'public' && def.idempotencyKey) errors.push(...IDEMPOTENCY_ERRORS);
  errors.push(unexpectedError(), serviceUnavailable('The database is unreachable; retry shortly.'));
  return errors;
}

const errorKey = (e: ApiError) => `${e.status} ${e.type} ${e.title}`;

export function routeContract(def: RouteDef): RouteContract {
  const seen = new Set<string>();
  const all = [...sharedErrors(def), ...(def.errors ?? [])].filter((e) => {
    const key = errorKey(e);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const errors = new Map<number, ApiError[]>();
  for (const e of [...all].sort((a, b) => a.status - b.status)) {
    errors.set(e.status, [...(errors.get(e.status) ?? []), e]);
  }
  return {
    success: successOf(def),
    errors,
    idempotent: def.scopes !== 'public' && def.idempotencyKey === true,
  };
}

function successOf(def: RouteDef): SuccessContract | null {
  if (!def.response) return null;
  const alternatives = (def.alsoAnswers ?? []).map((a) => ({ contentType: a.contentType, body: a.schema }));
  if (isRawResponse(def.response)) {
    return {
      contentType: def.response.contentType,
      body: def.response.schema,
      description: def.response.description,
      alternatives,
    };
  }
  const others = (def.alsoAnswers ?? []).map((a) => `\`${a.contentType}\`: ${a.description}`);
  return {
    contentType: 'application/json',
    body: envelope(def.response),
    payload: def.response,
    description: ['Success: the payload wrapped as `{payload}`', ...others].join('; '),
    alternatives,
  };
}

/** The error body of one status: the Error component, `type` and `title` narrowed to the ones documented for it. */
export function errorSchemaFor(errors: readonly ApiError[]): z.ZodType {
  const types = [...new Set(errors.map((e) => e.type))] as [string, ...string[]];
  const titles = [...new Set(errors.map((e) => e.title))] as [string, ...string[]];
  return z.intersection(errorBodySchema, z.object({ type: z.enum(types), title: z.enum(titles) }));
}

const contracts = new WeakMap<RouteDef, RouteContract>();

export interface ContractProblem {
  route: string;
  status: number;
  problem: string;
}

/** Header values the reference types more narrowly than a string. */
const HEADER_VALUES: Record<string, RegExp> = { 'retry-after': /^[0-9]+$/, 'idempotent-replayed': /^true$/ };

/**
 * Checks one answer against its route's contract: its headers against the ones documented for its
 * status, a 200 body against the success schema, an error against the errors documented for that
 * status. Returns what does not match, or null.
 */
export function checkAnswer(
  def: RouteDef,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): ContractProblem | null {
  const route = `${def.method} ${def.path}`;
  let contract = contracts.get(def);
  if (!contract) contracts.set(def, (contract = routeContract(def)));
  const fail = (problem: string) => ({ route, status, problem });
  const missing = answerHeaders(contract, status).filter((h) => !headers[h.toLowerCase()]);
  if (missing.length > 0) return fail(`header ${missing.join(', ')} is documented but absent`);
  for (const [name, pattern] of Object.entries(HEADER_VALUES)) {
    const value = headers[name];
    const text = value === undefined ? undefined : [value].flat().join(', ');
    if (text !== undefined && !pattern.test(text)) return fail(`header ${name}: ${text}`);
  }
  if (
    headers['idempotent-replayed'] !== undefined &&
    !(contract.idempotent && status >= 200 && status < 300)
  ) {
    return fail('Idempotent-Replayed is not documented for this answer');
  }
  if (status >= 200 && status < 300) {
    if (!contract.success) return null; // the contract test names routes without a response schema
    if (contract.success.contentType !== 'application/json') return null;
    // An answer in another documented media type (a CSV, a PDF) is bytes the schema cannot read.
    const type = String(headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (contract.success.alternatives.some((a) => a.contentType === type)) return null;
    const parsed = contract.success.body.safeParse(body);
    return parsed.success ? null : fail(describe(parsed.error));
  }
  const documented = contract.errors.get(status);
  if (!documented) return fail(`status ${status} is not documented (${summarise(body)})`);
  const parsed = errorSchemaFor(documented).safeParse(body);
  return parsed.success ? null : fail(`${describe(parsed.error)} (${summarise(body)})`);
}

const describe = (error: z.ZodError) =>
  error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
    .join('; ');

const summarise = (body: unknown) => {
  const b = body as { type?: unknown; title?: unknown } | null;
  return b && typeof b === 'object' ? `${String(b.type)} / ${String(b.title)}` : typeof body;
};
