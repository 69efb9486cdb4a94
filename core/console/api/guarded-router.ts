// A view of the app's router that puts `guard` in front of every route registered through it. Route modules
// keep calling router.get/post/patch/delete as before; no router.use(), which would make unknown
// /console/api paths look matched (they must stay a JSON 404) and would swallow 405s.
import type Router from '@koa/router';
import type { Middleware } from 'koa';

const VERBS = new Set<PropertyKey>(['get', 'post', 'put', 'patch', 'delete', 'del', 'all']);

/** `guard` runs first on every route; `beforeHandler` (if given) right before the route's last handler, after auth. */
export function guardedRouter(router: Router, guard: Middleware, beforeHandler?: Middleware): Router {
  return new Proxy(router, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (!VERBS.has(prop) || typeof value !== 'function') return value;
      return (path: unknown, ...handlers: unknown[]) => {
        const chain =
          beforeHandler && handlers.length > 0
            ? [...handlers.slice(0, -1), beforeHandler, handlers[handlers.length - 1]]
            : handlers;
        (value as (...args: unknown[]) => unknown).call(target, path, guard, ...chain);
        return receiver;
      };
    },
  });
}
