import { createHash } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { authenticate, authenticateInsurer } from './auth/authenticate.js';
import type { AppDeps } from './deps.js';
import { errorMiddleware } from './middleware/errors.js';
import { docsAssets } from './middleware/docs-assets.js';
import { observe } from './middleware/observe.js';
import { jsonOnly, MAX_BODY_BYTES, readJsonBody, readUpload, requestLog } from './middleware/request.js';
import { MAX_JSON_BODY_BYTES } from '../domain/upload-limits.js';
import { methodNotAllowed, notFound } from './errors.js';
import { withIdempotency } from './idempotency.js';
import { shadowedMethods, type RouteDef } from './route.js';
import { allRoutes } from './routes/index.js';
import { tenantScopeOf } from './tenant.js';
import { parseInput, parseNoBody, parseQuery } from './validation.js';

/** Builds the HTTP app from explicit dependencies; two calls give two independent apps. */
export function createApp(deps: AppDeps, routes: RouteDef[] = allRoutes()): Koa {
  const app = new Koa({ proxy: true });
  // Every route answers on its spec path exactly (`GET /v1/policy/` with its slash, `GET /v1/audit`
  // without): one rule, so a client's URL either is the contract's or is a 404.
  const router = new Router({ strict: true });
  // First, so that a static path's missing method never reaches a parameterised sibling.
  for (const { method, path, allowed } of shadowedMethods(routes)) {
    router[verb(method)](path, () => {
      throw methodNotAllowed(allowed);
    });
  }
  for (const def of routes) mount(router, def, deps);

  app.use(requestLog(deps.logger));
  app.use(observe(deps));
  app.use(errorMiddleware(deps.logger));
  app.use(docsAssets());
  app.use(jsonOnly(new Map(routes.flatMap((r) => (r.uploads ? [[r.path, r.uploads] as const] : [])))));
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(otherSlashHint(router));
  return app;
}

/**
 * Reached only when no route matched: a path that differs from a route's only by its trailing slash
 * stays a 404, whose detail names the path the route answers on.
 */
function otherSlashHint(router: Router): Koa.Middleware {
  return (ctx) => {
    const other = ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : `${ctx.path}/`;
    if (other && router.match(other, ctx.method).route) {
      throw notFound('Not Found', `no route for ${ctx.method} ${ctx.path}; the path is ${other}`);
    }
  };
}

const verb = (method: string) => method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';

function mount(router: Router, def: RouteDef, deps: AppDeps): void {
  router[verb(def.method)](def.path, async (ctx) => {
    ctx.state.route = def;
    const insurer = def.scopes !== 'public' && def.principal === 'insurer';
    const auth =
      def.scopes === 'public'
        ? undefined
        : insurer
          ? await authenticateInsurer(ctx, deps, def.scopes)
          : await authenticate(ctx, deps, def.scopes);
    // The body is read only now: after authentication on protected routes, within the route's limit.
    const upload = def.uploads && ctx.is([...def.uploads]) ? await readUpload(ctx, def.bodyLimit ?? 0) : null;
    if (upload) ctx.state.upload = { type: ctx.request.type, bytes: upload };
    else if (def.method !== 'GET')
      await readJsonBody(ctx, Math.min(def.bodyLimit ?? MAX_BODY_BYTES, MAX_JSON_BODY_BYTES));
    const params = def.params ? parseInput(def.params, ctx.params) : undefined;
    const query = parseQuery(def.query, ctx.query, def.invalidQuery);
    const body = upload
      ? undefined
      : def.body
        ? parseInput(def.body, ctx.request.body ?? null)
        : parseNoBody(def.method, ctx.request.body);
    // One tenant scope per request, for the token's client; its em carries the tenant filter (D1).
    // An insurer principal is no tenant: its routes scope their reads by the insurer (InsurerScope).
    const scope = auth && !insurer ? tenantScopeOf(deps, auth) : undefined;
    // One identity map per request: the tenant scope's fork, or a fork of its own where there is no
    // tenant (public and insurer routes). No RequestContext: a second fork per request costs time.
    const em = scope?.em ?? deps.orm.em.fork();
    ctx.state.auth = auth;
    const run = () => def.handler({ params, query, body, auth: auth!, scope: scope!, em, deps, ctx });
    // Keyed by the raw body, so a retry of the same request replays whatever the first one answered.
    const keyed = def.scopes !== 'public' && def.idempotencyKey && !def.unkeyed?.(query);
    // An upload is keyed by its bytes' digest and media type (the same file again is the same request).
    const keyBody = upload
      ? { upload_sha256: createHash('sha256').update(upload).digest('hex'), type: ctx.request.type }
      : ctx.request.body;
    const payload = keyed
      ? await withIdempotency(
          { deps, ctx, clientId: auth!.clientId, route: `${def.method} ${def.path}`, body: keyBody },
          run,
        )
      : await run();
    if (payload !== undefined) {
      ctx.status = def.successStatus ?? 200;
      ctx.body = { payload };
    }
  });
}
