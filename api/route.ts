import type { EntityManager } from '@mikro-orm/postgresql';
import type Koa from 'koa';
import type { z } from 'zod';
import type { TenantScope } from '../data/scope.js';
import type { Scope } from '../domain/scopes.js';
import type { Auth } from './auth/tokens.js';
import type { AppDeps } from './deps.js';
import type { ApiError } from './errors.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface Handler<P, Q, B, A> {
  params: P;
  query: Q;
  body: B;
  /** Verified token; absent only on public routes. */
  auth: A;
  /** The token's tenant (D1); absent only on public routes. */
  scope: A extends Auth ? TenantScope : TenantScope | undefined;
  /** A request-scoped EntityManager; on protected routes the scope's, its tenant filter set (D1). */
  em: EntityManager;
  deps: AppDeps;
  ctx: Koa.Context;
}

interface RouteBase<PS, QS, BS> {
  method: Method;
  /** Koa-router path, e.g. `/v1/policy/:policy_id`. */
  path: string;
  /**
   * The operation's name in the API reference and in clients generated from it, for what it does
   * (`listPolicies`, `createEndorsement`); unique across routes, never derived from the path.
   */
  operationId: string;
  summary: string;
  params?: PS;
  query?: QS;
  body?: BS;
  /** Error to answer when the query fails its schema (default 400 VALIDATION_ERROR naming the field). */
  invalidQuery?: (detail: string) => ApiError;
  /** Largest body this route reads, in bytes (default 1 MiB); public routes keep theirs small. */
  bodyLimit?: number;
  /**
   * Media types besides JSON this route reads as raw bytes (a file upload, within bodyLimit): the
   * handler finds them in `ctx.state.upload` ({@link Upload}) and gets no parsed body.
   */
  uploads?: readonly string[];
  /** The status of a success (default 200), e.g. 202 for work accepted to run later. */
  successStatus?: 200 | 202;
  /** Longer text for the API reference (the summary is its title). */
  description?: string;
  /** What a success answers, for the API reference and the contract test. */
  response?: RouteResponse;
  /**
   * Other media types a success may answer in, chosen by the request's `Accept` (the handler writes
   * them itself; without one of them accepted, the JSON payload): documented beside the payload.
   */
  alsoAnswers?: readonly RawResponse[];
  /**
   * The errors this route answers besides the ones every route shares (see api/openapi/errors.ts),
   * built with the same helpers the handler throws, so the reference cannot name another title.
   */
  errors?: readonly ApiError[];
}

/** An uploaded body as read by the route mounting: its media type and bytes. */
export interface Upload {
  type: string;
  bytes: Buffer;
}

/**
 * A success answer: the payload schema (sent as `{payload}`, D11), or a body the handler writes
 * itself in another media type (a PDF, a page), sent as it is.
 */
export type RouteResponse = Schema | RawResponse;
export interface RawResponse {
  contentType: string;
  schema: Schema;
  description: string;
}
export const isRawResponse = (r: RouteResponse): r is RawResponse => 'contentType' in r;

export interface ProtectedRoute<PS, QS, BS> extends RouteBase<PS, QS, BS> {
  /** Any one of these scopes admits the token (D2). */
  scopes: readonly Scope[];
  /**
   * The route honours an optional `Idempotency-Key` header: the dispatcher runs its handler through
   * withIdempotency, and the reference declares the header, `Idempotent-Replayed` and its errors.
   */
  idempotencyKey?: boolean;
  /** A request of an idempotencyKey route that is not keyed (a dry run writes nothing to replay). */
  unkeyed?: (query: unknown) => boolean;
  /**
   * `insurer` (D14): called by an insurer principal, not a client. The handler gets no tenant
   * scope (`scope` is undefined) and `auth.insurerId` set; it builds an InsurerScope from it.
   */
  principal?: 'client' | 'insurer';
  /** Returns the payload to wrap as `{payload}`, or undefined when it has written ctx.body itself. */
  handler: (req: Handler<Out<PS>, Out<QS>, Out<BS>, Auth>) => Promise<unknown>;
}

export interface PublicRoute<PS, QS, BS> extends RouteBase<PS, QS, BS> {
  scopes: 'public';
  handler: (req: Handler<Out<PS>, Out<QS>, Out<BS>, Auth | undefined>) => Promise<unknown>;
}

export type RouteDef =
  | ProtectedRoute<Schema | undefined, Schema | undefined, Schema | undefined>
  | PublicRoute<Schema | undefined, Schema | undefined, Schema | undefined>;

/** Declares a route the way the spec lists it: method, path, scopes, schemas, handler. */
export function route<
  PS extends Schema | undefined = undefined,
  QS extends Schema | undefined = undefined,
  BS extends Schema | undefined = undefined,
>(def: ProtectedRoute<PS, QS, BS>): RouteDef;
export function route<
  PS extends Schema | undefined = undefined,
  QS extends Schema | undefined = undefined,
  BS extends Schema | undefined = undefined,
>(def: PublicRoute<PS, QS, BS>): RouteDef;
export function route(def: unknown): RouteDef {
  return def as RouteDef;
}

/** A method that a static path lacks but a parameterised route of that method would answer for it. */
export interface ShadowedMethod {
  method: Method;
  path: string;
  /** The static path's own methods, for the `Allow` header. */
  allowed: Method[];
}

/** `/v1/client/employees/:employee_id` as a pattern of whole segments. */
const pathPattern = (path: string) =>
  new RegExp(
    `^${path
      .split(/(:[A-Za-z0-9_]+)/)
      .map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  );

/**
 * Where a static path would fall through to a parameterised sibling of another method (`PUT
 * /v1/client/employees/bulk` to the update of an employee called "bulk"): that method on that path
 * is 405 with the static path's own methods, as any other method a path lacks.
 */
export function shadowedMethods(routes: readonly RouteDef[]): ShadowedMethod[] {
  const byPath = new Map<string, Method[]>();
  for (const r of routes)
    if (!r.path.includes(':')) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r.method]);
  const shadowed: ShadowedMethod[] = [];
  for (const [path, allowed] of byPath) {
    const methods = new Set(
      routes
        .filter((r) => r.path.includes(':') && !allowed.includes(r.method) && pathPattern(r.path).test(path))
        .map((r) => r.method),
    );
    for (const method of methods) shadowed.push({ method, path, allowed });
  }
  return shadowed;
}
