// The Allow header of OPTIONS (and of a 405) lists the methods of the routes a path matched. A console path id is
// a positive integer (api/input.ts idParam), so /console/api/me/sessions/revoke-all is not a session id: without
// this, DELETE /console/api/me/sessions/:id would match it and OPTIONS would advertise a DELETE it does not serve.
import type { Context, Next } from 'koa';

interface MatchedLayer {
  path: string | RegExp;
  paramNames: Array<{ name: string }>;
  captures(path: string): string[];
}

const ID = /^[1-9]\d{0,15}$/;

/** Runs just inside router.allowedMethods(): drops console routes matched by a path id that is not an id. */
export async function consoleIdsOnlyForAllow(ctx: Context, next: Next): Promise<void> {
  const c = ctx as Context & { matched?: MatchedLayer[] };
  if (c.matched && ctx.path.startsWith('/console/api/'))
    c.matched = c.matched.filter(
      (layer) => layer.paramNames.length === 0 || layer.captures(ctx.path).every((v) => ID.test(v)),
    );
  await next();
}
