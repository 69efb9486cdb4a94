// Several upstreams per operation through the whole gateway: tiers by priority, failures marked `next` move on,
// the caller's own errors do not, a circuit opens after consecutive failures, the mapped answer must match
// `response`, and every answer names the upstream that served it.
import nock from 'nock';
import t from 'tap';
import { upstreamHealthOf } from '../../../core/state/upstream-health.js';
import { admin } from '../../console/support.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { replyAfter } from '../../sandbox/helpers.js';
import { field, ID_FIELD, itemUpstream, itemYaml, NOT_FOUND_RULE, upstreamApp } from './support.js';

nock.disableNetConnect();
const upstream = (id: string, priority: number, extra = '') =>
  itemUpstream(
    id,
    `
        priority: ${priority}
        cost_per_call: 0.001
        timeout_ms: 300
        circuit: { failures: 2, cool_down_s: 60 }`,
    `
          headers: { authorization: 'Bearer \${${id.toUpperCase()}_TOKEN}' }`,
    `${NOT_FOUND_RULE}${extra}
        result: '{ "id": body.item.id, "name": body.item.title, "provider": "${id}" }'`,
  );
const YAML = itemYaml(
  `${ID_FIELD}${field('name', '名称', 'Name')}${field('provider', '来源', 'Source')}`,
  `${upstream('alpha', 1)}${upstream('beta', 2)}`,
);
const ok = (id: string, title = 'Thing') => ({ item: { id, title } });

let h: TestApp;
t.before(async () => {
  process.env.ALPHA_TOKEN = 'alpha-secret';
  process.env.BETA_TOKEN = 'beta-secret';
  h = await upstreamApp(YAML);
});
t.afterEach(async () => {
  nock.cleanAll();
  const health = upstreamHealthOf(h.services.state);
  await health.markUp('item', 'alpha');
  await health.markUp('item', 'beta');
  await h.assertReconciled();
});
t.teardown(async () => {
  delete process.env.ALPHA_TOKEN;
  delete process.env.BETA_TOKEN;
  await h.close();
});

t.test('the first tier answers; the secret goes in the header; the path value is encoded', async (t) => {
  const u = await h.user('1');
  const a = nock('https://alpha.example.com', { reqheaders: { authorization: 'Bearer alpha-secret' } })
    .get('/v1/items/a%2Fb%20c')
    .reply(200, ok('a/b c'));
  const res = await h.client.get(`/api/item?id=${encodeURIComponent('a/b c')}`, { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.same(res.body.data, { id: 'a/b c', name: 'Thing', provider: 'alpha' });
  t.equal(res.headers['x-upstream'], 'alpha');
  t.ok(a.isDone());
});

t.test('a 500 from the first tier moves to the second; charged once', async (t) => {
  const u = await h.user('1');
  nock('https://alpha.example.com').get('/v1/items/x1').reply(500, 'oops');
  nock('https://beta.example.com').get('/v1/items/x1').reply(200, ok('x1'));
  const res = await h.client.get('/api/item?id=x1', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.equal(res.body.data.provider, 'beta');
  t.equal(res.headers['x-upstream'], 'beta');
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
});

t.test('a timeout of the first tier moves to the second within the deadline', async (t) => {
  const u = await h.user('1');
  nock('https://alpha.example.com')
    .get('/v1/items/x2')
    .reply(replyAfter(1000, JSON.stringify(ok('x2'))));
  nock('https://beta.example.com').get('/v1/items/x2').reply(200, ok('x2'));
  const res = await h.client.get('/api/item?id=x2', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.equal(res.body.data.provider, 'beta');
});

t.test("NOT_FOUND is the caller's answer: the next tier is not asked", async (t) => {
  const u = await h.user('1');
  nock('https://alpha.example.com').get('/v1/items/none').reply(404, { error: 'not found' });
  const b = nock('https://beta.example.com').get('/v1/items/none').reply(200, ok('none'));
  const res = await h.client.get('/api/item?id=none', { 'X-API-Key': u.key });
  t.equal(res.status, 404);
  t.same(res.body.error, { code: 'NOT_FOUND', message: 'No such item' });
  t.notOk(b.isDone(), 'beta was not asked');
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('an answer of another shape is never sold: the next tier answers, the path is logged', async (t) => {
  const u = await h.user('1');
  nock('https://alpha.example.com')
    .get('/v1/items/x3')
    .reply(200, { item: { id: 'x3', title: 42 } });
  nock('https://beta.example.com').get('/v1/items/x3').reply(200, ok('x3'));
  const res = await h.client.get('/api/item?id=x3', { 'X-API-Key': u.key });
  t.equal(res.body.data.provider, 'beta');
  t.ok(h.logs.some((l) => l.message === 'upstream answer changed shape' && l.path === '/name must be string'));
});

t.test('every upstream failing: the last failure, free', async (t) => {
  const u = await h.user('1');
  nock('https://alpha.example.com').get('/v1/items/x4').reply(503, 'busy');
  nock('https://beta.example.com').get('/v1/items/x4').reply(200, { unexpected: true });
  const res = await h.client.get('/api/item?id=x4', { 'X-API-Key': u.key, 'Accept-Language': 'zh' });
  t.equal(res.status, 502);
  t.same(res.body.error, { code: 'UPSTREAM_FAILED', message: '上游返回的数据格式已变化' });
  t.equal(res.body.deducted, 0);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('two failures in a row open the circuit: alpha is skipped until its trial', async (t) => {
  const u = await h.user('1');
  for (const id of ['c1', 'c2']) {
    nock('https://alpha.example.com').get(`/v1/items/${id}`).reply(502, 'bad gateway');
    nock('https://beta.example.com').get(`/v1/items/${id}`).reply(200, ok(id));
    t.equal((await h.client.get(`/api/item?id=${id}`, { 'X-API-Key': u.key })).body.data.provider, 'beta');
  }
  const health = upstreamHealthOf(h.services.state);
  t.match(await health.down('item', 'alpha'), { reason: /HTTP 502/ });
  const a = nock('https://alpha.example.com').get('/v1/items/c3').reply(200, ok('c3'));
  nock('https://beta.example.com').get('/v1/items/c3').reply(200, ok('c3'));
  const res = await h.client.get('/api/item?id=c3', { 'X-API-Key': u.key });
  t.equal(res.body.data.provider, 'beta');
  t.notOk(a.isDone(), 'alpha was skipped');
  // markUp (what a passing canary calls) puts it back at once.
  await health.markUp('item', 'alpha');
  t.equal(await health.down('item', 'alpha'), null);
  const back = await h.client.get('/api/item?id=c3', { 'X-API-Key': u.key });
  t.equal(back.body.data.provider, 'alpha');
});

t.test('a header value with a line break is refused as INVALID_INPUT, nothing fetched', async (t) => {
  const yaml = YAML.replace("authorization: 'Bearer ${ALPHA_TOKEN}'", "x-id: '{{ input.id }}'");
  const h2 = await upstreamApp(yaml);
  t.teardown(() => h2.close());
  const u = await h2.user('1');
  const res = await h2.client.get(`/api/item?id=${encodeURIComponent('a\r\nx-evil: 1')}`, { 'X-API-Key': u.key });
  t.equal(res.status, 400);
  t.equal(res.body.error.code, 'INVALID_INPUT');
  t.match(res.body.error.message, /line break/);
  t.equal(res.headers['x-upstream'], 'alpha');
});

t.test('cost and margin: the call log keeps the upstream and its cost; the admin report sums them', async (t) => {
  const u = await h.user('1');
  nock('https://alpha.example.com').get('/v1/items/m1').reply(500, 'x');
  nock('https://beta.example.com').get('/v1/items/m1').reply(200, ok('m1'));
  nock('https://alpha.example.com').get('/v1/items/m2').reply(200, ok('m2'));
  nock('https://alpha.example.com').get('/v1/items/m3').reply(404, '');
  for (const id of ['m1', 'm2', 'm3']) await h.client.get(`/api/item?id=${id}`, { 'X-API-Key': u.key });
  await h.services.callLog.flush();
  const rows = (await h.callLog(u.userId)).map((r) => [
    r.status,
    r.upstream,
    Number(r.upstream_cost),
    Number(r.charged),
  ]);
  t.same(
    rows.sort((a, b) => String(a[1]).localeCompare(String(b[1])) || Number(a[0]) - Number(b[0])),
    [
      [200, 'alpha', 1000, 10_000],
      [404, 'alpha', 0, 0],
      [200, 'beta', 1000, 10_000],
    ],
  );
  const a = await admin(h);
  const res = await h.client.get('/console/api/admin/margin?days=1', a.headers);
  t.equal(res.status, 200);
  const item = res.body.rows.filter((r: { operation: string }) => r.operation === 'item');
  const alpha = item.find((r: { upstream: string }) => r.upstream === 'alpha');
  t.ok(alpha.calls >= 1);
  t.equal(alpha.margin, Math.round((alpha.revenue - alpha.cost) * 1e6) / 1e6);
  t.equal(alpha.cost, alpha.calls * 0.001);
  const csv = await h.client.get('/console/api/admin/margin?days=1&format=csv', a.headers);
  t.equal(csv.status, 200);
  t.match(csv.headers['content-type'], /text\/csv/);
  t.match(csv.text, /^day,operation,upstream,calls,revenue,cost,canary_cost,margin\n/);
  t.equal(alpha.canary_cost, 0);
  t.match(csv.text, new RegExp(`,item,alpha,${alpha.calls},${alpha.revenue},${alpha.cost},0,${alpha.margin}\\n`));
});
