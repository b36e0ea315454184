import Router from '@koa/router';
import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import Koa from 'koa';
import { authenticate } from './auth/authenticate.js';
import type { AppDeps } from './deps.js';
import { errorMiddleware } from './middleware/errors.js';
import { docsAssets } from './middleware/docs-assets.js';
import { observe } from './middleware/observe.js';
import { jsonOnly, readJsonBody, requestLog } from './middleware/request.js';
import { methodNotAllowed } from './errors.js';
import { shadowedMethods, type RouteDef } from './route.js';
import { allRoutes } from './routes/index.js';
import { tenantScopeOf } from './tenant.js';
import { parseInput, parseNoBody, parseQuery } from './validation.js';

/** Builds the HTTP app from explicit dependencies; two calls give two independent apps. */
export function createApp(deps: AppDeps, routes: RouteDef[] = allRoutes()): Koa {
  const app = new Koa({ proxy: true });
  const router = new Router();
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
  app.use(jsonOnly());
  app.use((ctx, next) => RequestContext.create(deps.orm.em, next));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

const verb = (method: string) => method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';

function mount(router: Router, def: RouteDef, deps: AppDeps): void {
  router[verb(def.method)](def.path, async (ctx) => {
    ctx.state.route = def;
    const auth = def.scopes === 'public' ? undefined : await authenticate(ctx, deps, def.scopes);
    // The body is read only now: after authentication on protected routes, within the route's limit.
    if (def.method !== 'GET') await readJsonBody(ctx, def.bodyLimit);
    const params = def.params ? parseInput(def.params, ctx.params) : undefined;
    const query = parseQuery(def.query, ctx.query, def.invalidQuery);
    const body = def.body
      ? parseInput(def.body, ctx.request.body ?? null)
      : parseNoBody(def.method, ctx.request.body);
    // One tenant scope per request, for the token's client; its em carries the tenant filter (D1).
    const scope = auth ? tenantScopeOf(deps, auth) : undefined;
    const em = scope?.em ?? (RequestContext.getEntityManager() as EntityManager);
    ctx.state.auth = auth;
    const payload = await def.handler({ params, query, body, auth: auth!, scope: scope!, em, deps, ctx });
    if (payload !== undefined) {
      ctx.status = 200;
      ctx.body = { payload };
    }
  });
}
