// A view of the app's router that puts `guard` in front of every route registered through it. Route modules
// keep calling router.get/post/patch/delete as before; no router.use(), which would make unknown
// /console/api paths look matched (they must stay a JSON 404) and would swallow 405s.
import type Router from '@koa/router';
import type { Middleware } from 'koa';

const VERBS = new Set<PropertyKey>(['get', 'post', 'put', 'patch', 'delete', 'del', 'all']);

export function guardedRouter(router: Router, guard: Middleware): Router {
  return new Proxy(router, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (!VERBS.has(prop) || typeof value !== 'function') return value;
      return (path: unknown, ...handlers: unknown[]) => {
        (value as (...args: unknown[]) => unknown).call(target, path, guard, ...handlers);
        return receiver;
      };
    },
  });
}
