// One source of request and response shapes for the console API: the body and query schemas /openapi.json
// publishes are the ones Ajv enforces (core/console/routes/mount-routes.ts), and real answers match the published response
// schemas (validated with Ajv against the served document, $refs and all).

import { Ajv, type ValidateFunction } from 'ajv';
import t from 'tap';
import { CONSOLE_ROUTES } from '../../core/console/contract/index.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { admin, consoleUser } from './support.js';

/** A schema as JSON carries it (TypeBox's own symbol keys dropped). */
const json = (s: unknown): unknown => JSON.parse(JSON.stringify(s));

let h: TestApp;
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON
let doc: Record<string, any>;
const openApiPath = (p: string): string => p.replace(/:([A-Za-z_]\w*)/g, '{$1}');

t.before(async () => {
  h = await createTestApp();
  doc = (await h.client.get('/openapi.json')).body;
});
t.teardown(() => h.close());

t.test(
  'every console route has a response schema, and the document publishes the bodies and queries that are enforced',
  async (t) => {
    for (const e of CONSOLE_ROUTES) {
      t.ok(Object.keys(e.responses).length > 0, `${e.id} has a response schema`);
      const op = doc.paths[openApiPath(e.path)][e.method.toLowerCase()];
      if (e.body)
        t.same(
          op.requestBody.content['application/json'].schema,
          json(e.body),
          `${e.id}: published body = enforced body`,
        );
      const queries = (e.query as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties;
      for (const [name, { description: _, ...schema }] of Object.entries(queries ?? {})) {
        const published = op.parameters.find((p: { name: string; in: string }) => p.name === name && p.in === 'query');
        t.same(published.schema, json(schema), `${e.id} ?${name}`);
      }
      for (const p of op.parameters.filter((x: { in: string }) => x.in === 'path'))
        t.same(p.schema.type, 'integer', `${e.id} path ${p.name} is an integer id`);
    }
    t.equal(new Set(CONSOLE_ROUTES.map((e) => e.id)).size, CONSOLE_ROUTES.length, 'operationIds are unique');
  },
);

t.test('bodies and queries are refused by the schema with the field named, before the handler runs', async (t) => {
  const u = await consoleUser(h, 1);
  const a = await admin(h);
  const cases: Array<[string, string, unknown, Record<string, string>, string]> = [
    [
      'post',
      '/console/api/keys',
      { nme: 'x' },
      u.headers,
      "Unknown field 'nme'; allowed: name, allowed_codes, ip_allow, expires_at, rate_limit_per_sec, rate_limit_burst, max_concurrency, daily_spend_cap.",
    ],
    [
      'post',
      '/console/api/keys',
      { rate_limit_per_sec: 10_001 },
      u.headers,
      "'rate_limit_per_sec' must be an integer from 1 to 10000.",
    ],
    [
      'post',
      '/console/api/keys',
      { allowed_codes: [] },
      u.headers,
      "'allowed_codes' must be null or a list of 1 to 100 non-empty strings.",
    ],
    [
      'post',
      '/console/api/keys',
      { ip_allow: [' '] },
      u.headers,
      "'ip_allow' must be null or a list of 1 to 100 non-empty strings.",
    ],
    ['get', '/console/api/ledger?limit=501', undefined, u.headers, "'limit' must be an integer from 1 to 500."],
    ['get', '/console/api/orders?limit=201', undefined, u.headers, "'limit' must be an integer from 1 to 200."],
    [
      'get',
      '/console/api/calls?key_id=0',
      undefined,
      u.headers,
      "'key_id' must be an integer from 1 to 9007199254740991.",
    ],
    ['patch', '/console/api/admin/users/1', { status: 'gone' }, a.headers, "'status' must be one of active, disabled."],
    [
      'post',
      '/console/api/register',
      { email: 'x@example.com', password: 'short1' },
      {},
      'Weak password: password must be at least 8 characters.',
    ],
  ];
  for (const [method, path, body, headers, message] of cases) {
    const res =
      method === 'get'
        ? await h.client.get(path, headers)
        : await h.client.request(path, { method: method.toUpperCase(), body, headers });
    t.equal(res.status, 400, `${method} ${path}`);
    t.same(res.body.error, { code: 'INVALID_INPUT', message }, `${method} ${path} ${JSON.stringify(body)}`);
  }
  t.same(
    (await h.services.store.db.selectFrom('api_keys').select('id').where('user_id', '=', u.userId).execute()).length,
    1,
    'no key was created',
  );
});

t.test('inputs valid by the published schema are accepted', async (t) => {
  const u = await consoleUser(h, 1);
  const made = await h.client.post(
    '/console/api/keys',
    { name: 'k', rate_limit_per_sec: 10_000, rate_limit_burst: 100_000, max_concurrency: 1000, allowed_codes: null },
    u.headers,
  );
  t.equal(made.status, 201);
  t.equal((await h.client.get('/console/api/ledger?limit=500&before=9007199254740991', u.headers)).status, 200);
  t.equal((await h.client.get('/console/api/calls?limit=', u.headers)).status, 200, 'an empty value is absent');
});

t.test('real console answers match the published response schemas', async (t) => {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON
  ajv.addSchema({ $id: 'doc', components: doc.components } as any);
  const check = (id: string, status: number, body: unknown): void => {
    const e = CONSOLE_ROUTES.find((x) => x.id === id);
    if (!e) throw new Error(id);
    const usual = Object.keys(e.responses)[0];
    const schema =
      doc.paths[openApiPath(e.path)][e.method.toLowerCase()].responses[usual].content['application/json'].schema;
    const validate: ValidateFunction = ajv.compile(
      JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')),
    );
    t.equal(status, Number(usual), `${id} status`);
    t.ok(validate(body), `${id}: ${JSON.stringify(validate.errors)?.slice(0, 400)}`);
  };
  const u = await consoleUser(h, 5);
  const a = await admin(h);
  await h.client.get(`/api/echo?msg=hi`, { 'X-API-Key': u.key });
  for (const [id, path] of [
    ['me', '/console/api/me'],
    ['listKeys', '/console/api/keys'],
    ['ledger', '/console/api/ledger'],
    ['calls', '/console/api/calls'],
    ['usage', '/console/api/usage'],
    ['operations', '/console/api/operations'],
    ['plans', '/console/api/plans'],
    ['packages', '/console/api/packages'],
    ['listOrders', '/console/api/orders'],
    ['alerts', '/console/api/alerts'],
    ['sessions', '/console/api/me/sessions'],
    ['security', '/console/api/me/security'],
  ] as const) {
    const res = await h.client.get(path, u.headers);
    check(id, res.status, res.body);
  }
  const key = await h.client.post('/console/api/keys', { name: 'contract' }, u.headers);
  check('createKey', key.status, key.body);
  const upd = await h.client.request(`/console/api/keys/${key.body.key.id}`, {
    method: 'PATCH',
    body: { disabled: true },
    headers: u.headers,
  });
  check('updateKey', upd.status, upd.body);
  const del = await h.client.request(`/console/api/keys/${key.body.key.id}`, { method: 'DELETE', headers: u.headers });
  check('deleteKey', del.status, del.body);
  for (const [id, path] of [
    ['adminUsers', '/console/api/admin/users'],
    ['adminOrders', '/console/api/admin/orders'],
    ['adminStats', '/console/api/admin/stats'],
    ['adminOperations', '/console/api/admin/operations'],
    ['adminRedeemBatches', '/console/api/admin/redeem-codes'],
    ['adminAudit', '/console/api/admin/audit'],
  ] as const) {
    const res = await h.client.get(path, a.headers);
    check(id, res.status, res.body);
  }
  const grant = await h.client.post(
    '/console/api/admin/grants',
    { email: (await h.client.get('/console/api/me', u.headers)).body.user.email, amount: 1, reason: 'contract' },
    a.headers,
  );
  check('adminGrant', grant.status, grant.body);
});

t.test('every console route with a body refuses a field its schema does not list', async (t) => {
  const u = await consoleUser(h, 1);
  const a = await admin(h);
  for (const e of CONSOLE_ROUTES.filter((x) => x.body)) {
    const path = e.path.replace(/:[A-Za-z_]\w*/g, '1');
    const headers = e.auth === 'admin' ? a.headers : e.auth === 'user' ? u.headers : {};
    const res = await h.client.request(path, { method: e.method, body: { __unknown: 1 }, headers });
    const schema = e.body as unknown as { properties: Record<string, unknown>; required?: string[] };
    const expected = (schema.required ?? []).length
      ? new RegExp(`^'${schema.required?.[0]}' is required`)
      : new RegExp(`^Unknown field '__unknown'; allowed: ${Object.keys(schema.properties).join(', ')}\\.$`);
    t.equal(res.status, 400, `${e.method} ${e.path}`);
    t.match(res.body.error, { code: 'INVALID_INPUT', message: expected }, `${e.method} ${e.path}`);
  }
});
