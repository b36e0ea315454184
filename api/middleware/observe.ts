import type Koa from 'koa';
import type { AppDeps } from '../deps.js';
import { JsonAnswer } from '../json-answer.js';
import type { RouteDef } from '../route.js';

/** The route a request matched, set by the router's handler before anything can fail. */
export const matchedRoute = (ctx: Koa.Context): RouteDef | undefined =>
  ctx.state.route as RouteDef | undefined;

/**
 * Records each answer once it is final (after the error middleware rendered it): request metrics
 * labelled with the route's pattern, never the raw path (ids would make every request a series),
 * and the optional response observer (an answer written in pieces as the object it writes).
 */
export function observe(deps: Pick<AppDeps, 'metrics' | 'onResponse'>): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = matchedRoute(ctx);
      const seconds = (performance.now() - started) / 1000;
      deps.metrics.observeRequest(ctx.method, route?.path ?? 'unmatched', ctx.status, seconds);
      // An answer written in pieces is presented again as one object only for an observer.
      if (route && deps.onResponse) {
        const body: unknown = ctx.body instanceof JsonAnswer ? ctx.body.value : ctx.body;
        deps.onResponse(route, ctx.status, body, ctx.response.headers);
      }
    }
  };
}
