// The console route mounter (core/console/routes/mount-routes.ts) on a definition with a query, a path id and a
// body: values coerced to the declared types, refusals worded as the console words them, the status chosen.

import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import t from 'tap';
import { defineRoutes } from '../../core/console/contract/define.js';
import { answer, body, idQuery, params, pathId, rInt, Type, upTo } from '../../core/console/contract/schema.js';
import { implement, mountRoutes } from '../../core/console/routes/mount-routes.js';
import { ApiError } from '../../core/http/errors.js';
import type { Services } from '../../core/services.js';

const PROBE = defineRoutes({
  probe: {
    method: 'POST',
    path: '/probe/:id',
    summary: 'probe',
    auth: 'none',
    params: params({ id: pathId('probe') }),
    query: Type.Object({ limit: upTo(10, 'page size'), before: idQuery('cursor') }),
    body: body({ n: Type.Integer({ minimum: 1, maximum: 5 }) }),
    responses: { 201: answer({ id: rInt, limit: rInt, n: rInt }) },
  },
});

t.test('typed input, console refusals, the first listed status', async (t) => {
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      ctx.status = err.status;
      ctx.body = { code: err.code, message: String(err.message) };
    }
  });
  app.use(bodyParser());
  const router = new Router();
  const routes = implement(PROBE, {
    probe: async ({ params: { id }, query, body: b }) => {
      t.equal(typeof id, 'number');
      return { id, limit: query.limit ?? 3, n: b.n };
    },
  });
  mountRoutes(router, {} as Services, routes);
  app.use(router.routes());
  const server = app.listen(0);
  t.teardown(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, b: unknown) => {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(b),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  t.same(await post('/probe/7?limit=4', { n: 2 }), { status: 201, body: { id: 7, limit: 4, n: 2 } });
  t.same((await post('/probe/7?limit=', { n: 2 })).body, { id: 7, limit: 3, n: 2 }, 'an empty value is absent');
  t.same((await post('/probe/7?limit=11', { n: 2 })).body.message, "'limit' must be an integer from 1 to 10.");
  for (const loose of ['0x4', '1e0', '%204', '%2B4', '4.0'])
    t.same(
      await post(`/probe/7?limit=${loose}`, { n: 2 }),
      { status: 400, body: { code: 'INVALID_INPUT', message: "'limit' must be an integer from 1 to 10." } },
      `a query integer is decimal digits only (${loose})`,
    );
  t.same((await post('/probe/7?limit=04', { n: 2 })).body, { id: 7, limit: 4, n: 2 }, 'leading zeros are digits');
  t.same((await post('/probe/7', { n: 9 })).body.message, "'n' must be an integer from 1 to 5.");
  t.same((await post('/probe/7', { n: 1, x: 1 })).body.message, "Unknown field 'x'; allowed: n.");
  const notFound = await post('/probe/07', { n: 1 });
  t.equal(notFound.status, 404);
  t.equal(notFound.body.code, 'RESOURCE_NOT_FOUND');
});
