// Mounts console route definitions (core/console/contract/) with their handlers: NUL bytes and database outages
// (console-guard.ts), then auth, then the path ids, query and JSON body checked against the definition's schemas
// (compiled once per definition), then the handler with the typed, already-checked input. Its return value is
// the answer, sent with the definition's first success status unless the handler chose another listed one.
import type Router from '@koa/router';
import type { ValidateFunction } from 'ajv';
import type { Context, Middleware, Next } from 'koa';
import type { User } from '../../accounts/users.js';
import type { Services } from '../../services.js';
import { requireAdmin, requireUser, userOf } from '../api/auth.js';
import { consoleGuard } from '../api/console-guard.js';
import { idParam } from '../api/input.js';
import type { BodyOf, ParamsOf, QueryOf, ResponseOf, RouteDef } from '../contract/define.js';
import { invalid, makeAjv, messageOf, queryValues, refuseLooseIntegers, requireJsonBody } from './input-checks.js';

/** What a handler receives: the checked body, query (coerced to the declared types) and path ids, and the user. */
export interface Input<D extends RouteDef> {
  body: BodyOf<D>;
  query: QueryOf<D>;
  params: ParamsOf<D>;
  user: D['auth'] extends 'none' ? undefined : User;
}
/** A CSV route writes its own answer (a stream) and returns nothing; a json+csv route does so when asked for CSV. */
export type Handler<D extends RouteDef> = (
  input: Input<D>,
  ctx: Context,
) => Promise<
  D['produces'] extends 'text/csv'
    ? undefined
    : D['produces'] extends 'json+csv'
      ? ResponseOf<D> | undefined
      : ResponseOf<D>
>;

type AnyHandler = (input: Input<RouteDef>, ctx: Context) => Promise<unknown>;
export interface BoundRoute {
  def: RouteDef;
  handler: AnyHandler;
}

/** A group's definitions with one handler each (a missing or extra handler does not compile). */
export function implement<const G extends Record<string, RouteDef>>(
  group: G,
  handlers: { [K in keyof G]: Handler<G[K]> },
): BoundRoute[] {
  return Object.keys(group).map((k) => ({ def: group[k], handler: handlers[k] as unknown as AnyHandler }));
}

interface Checks {
  body?: ValidateFunction;
  query?: ValidateFunction;
  queryNames: string[];
  /** Path parameter -> what a malformed value is not found as ("API key"). */
  ids: Array<[string, string]>;
}

const bodies = makeAjv(false);
const queries = makeAjv(true);
const compiled = new WeakMap<RouteDef, Checks>();

type Props = Record<string, Record<string, unknown>>;
const propsOf = (s: unknown): Props => ((s as { properties?: Props } | undefined)?.properties ?? {}) as Props;

function checksOf(def: RouteDef): Checks {
  let c = compiled.get(def);
  if (!c) {
    c = {
      ...(def.body ? { body: bodies.compile(def.body) } : {}),
      ...(def.query ? { query: queries.compile(def.query) } : {}),
      queryNames: Object.keys(propsOf(def.query)),
      ids: Object.entries(propsOf(def.params))
        .filter(([, s]) => typeof s['x-not-found'] === 'string')
        .map(([name, s]) => [name, String(s['x-not-found'])]),
    };
    compiled.set(def, c);
  }
  return c;
}

function run(def: RouteDef, handler: AnyHandler): Middleware {
  const checks = checksOf(def);
  const success = Number(Object.keys(def.responses)[0] ?? 200);
  return async (ctx: Context) => {
    const params: Record<string, unknown> = { ...ctx.params };
    for (const [name, what] of checks.ids) params[name] = idParam(ctx.params[name], what);
    let query: Record<string, unknown> | undefined;
    if (checks.query) {
      query = queryValues(ctx, checks.queryNames);
      refuseLooseIntegers(query, def.query);
      if (!checks.query(query)) throw invalid(messageOf((checks.query.errors ?? [])[0]));
    }
    let body: unknown;
    if (checks.body) {
      requireJsonBody(ctx);
      const raw = (ctx.request as { body?: unknown }).body;
      body = raw === undefined || raw === null ? {} : raw;
      if (!checks.body(body)) throw invalid(messageOf((checks.body.errors ?? [])[0]));
    }
    const user = def.auth === 'none' ? undefined : userOf(ctx);
    ctx.status = success;
    const out = await handler({ body, query, params, user } as Input<RouteDef>, ctx);
    if (out !== undefined) ctx.body = out;
  };
}

const METHODS = { GET: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'delete' } as const;

export function mountRoutes(router: Router, s: Services, routes: BoundRoute[]): void {
  const user = requireUser(s);
  const admin = requireAdmin(s);
  const pass = (_ctx: Context, next: Next) => next();
  for (const { def, handler } of routes) {
    const auth = def.auth === 'admin' ? admin : def.auth === 'user' ? user : pass;
    router[METHODS[def.method]](def.path, consoleGuard, auth, run(def, handler));
  }
}
