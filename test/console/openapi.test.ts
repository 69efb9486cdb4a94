// GET /openapi.json: every /api operation (GET query parameters, POST JSON body, route aliases), the
// envelope and catalogue errors, both security schemes, and every console path — which must match the
// routes actually mounted.

import Router from '@koa/router';
import t from 'tap';
import { CONSOLE_ROUTES } from '../../core/console/contract/index.js';
import { mountConsole } from '../../core/console/mount.js';
import { ERROR_CODES } from '../../core/http/errors.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.teardown(() => h.close());

const openApiPath = (p: string): string => p.replace(/:([A-Za-z_]\w*)/g, '{$1}');

t.test('the document is OpenAPI 3.1 with both API-key schemes and bearer for the console', async (t) => {
  const res = await h.client.get('/openapi.json');
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  const doc = res.body;
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, h.services.version);
  t.same(doc.components.securitySchemes.apiKeyHeader, { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  t.same(doc.components.securitySchemes.apiKeyQuery, { type: 'apiKey', in: 'query', name: 'api_key' });
  t.match(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer' });
  t.same(doc.components.schemas.Failure.properties.error.properties.code.enum, ERROR_CODES);
});

t.test('every operation: GET with query parameters, POST with a JSON body, aliases as extra paths', async (t) => {
  const doc = (await h.client.get('/openapi.json')).body;
  for (const op of h.services.registry.current.list()) {
    const path = doc.paths[`/api/${op.code}`];
    t.ok(path?.get && path?.post, `/api/${op.code} has get and post`);
    const props = Object.keys(op.input.properties ?? {});
    t.same(
      path.get.parameters.map((p: { name: string }) => p.name),
      props,
      `${op.code} query parameters`,
    );
    t.same(Object.keys(path.post.requestBody.content['application/json'].schema.properties), props);
    t.match(path.get.responses, { 200: {}, 400: {}, 401: {}, 402: {}, 403: {}, 429: {}, 500: {} });
    for (const r of op.routes)
      t.ok(doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()], `alias ${r.method} ${r.path}`);
  }
  const echo = doc.paths['/api/echo'].get;
  t.same(echo.parameters[0], {
    name: 'msg',
    in: 'query',
    required: false,
    description: 'any text',
    schema: { type: 'string', maxLength: 100, description: 'any text' },
  });
  t.equal(echo['x-price-token'], 0.01);
  t.match(echo.responses['402'].description, /INSUFFICIENT_BALANCE/);
  t.match(echo.responses['403'].description, /KEY_DISABLED.*KEY_EXPIRED.*IP_NOT_ALLOWED.*OPERATION_NOT_ALLOWED/);
  const alias = doc.paths['/api/items/{id}'].get;
  t.same(
    alias.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
    [
      ['id', 'path', true],
      ['fields', 'query', false],
    ],
  );
  t.same(doc.paths['/api/item'].post.requestBody.content['application/json'].schema.required, ['id']);
});

t.test('every console endpoint is in the document with its security', async (t) => {
  const doc = (await h.client.get('/openapi.json')).body;
  for (const e of CONSOLE_ROUTES) {
    const op = doc.paths[openApiPath(e.path)]?.[e.method.toLowerCase()];
    t.ok(op, `${e.method} ${e.path}`);
    t.same(op.security, e.auth === 'none' ? [] : [{ bearer: [] }]);
  }
  t.match(doc.paths['/console/api/register'].post.responses, { 201: {}, 400: {}, 409: {} });
});

t.test('the console endpoint list matches the mounted routes exactly', async (t) => {
  const router = new Router();
  mountConsole(router, h.services);
  const mounted = new Set<string>();
  for (const layer of router.stack) {
    for (const m of layer.methods)
      if (m !== 'HEAD' && String(layer.path).startsWith('/console/api/')) mounted.add(`${m} ${String(layer.path)}`);
  }
  const listed = new Set(CONSOLE_ROUTES.map((e) => `${e.method} ${e.path}`));
  t.same([...mounted].sort(), [...listed].sort());
});
