// An upstream's NOT_FOUND kept under its cache_key (not_found_ttl) through the whole gateway: the next call for the
// key is answered NOT_FOUND again, in the caller's language, free, without asking the upstream; once the entry
// runs out the upstream is asked again.
import nock from 'nock';
import t from 'tap';
import type { TestApp } from '../../helpers/create-test-app.js';
import { ID_FIELD, itemUpstream, itemYaml, NOT_FOUND_RULE, upstreamApp } from './support.js';

nock.disableNetConnect();
const YAML = itemYaml(
  ID_FIELD,
  itemUpstream(
    'alpha',
    `
        cost_per_call: 0.001
        cache_key: input.id
        not_found_ttl: 1`,
    '',
    `${NOT_FOUND_RULE}
        result: '{ "id": body.item.id }'`,
  ),
);

let h: TestApp;
t.before(async () => {
  h = await upstreamApp(YAML);
});
t.afterEach(() => nock.cleanAll());
t.teardown(() => h.close());

t.test('a NOT_FOUND is kept for not_found_ttl: asked once, then answered from the cache', async (t) => {
  const u = await h.user('1');
  const asked = nock('https://alpha.example.com').get('/v1/items/none').reply(404, '');
  const first = await h.client.get('/api/item?id=none', { 'X-API-Key': u.key });
  t.equal(first.status, 404);
  t.same(first.body.error, { code: 'NOT_FOUND', message: 'No such item' });
  t.equal(first.headers['x-upstream'], 'alpha');
  t.ok(asked.isDone());

  // No interceptor: a call to alpha would fail with UPSTREAM_FAILED; the kept answer is given instead.
  const zh = await h.client.get('/api/item?id=none', { 'X-API-Key': u.key, 'Accept-Language': 'zh-CN' });
  t.equal(zh.status, 404);
  t.same(zh.body.error, { code: 'NOT_FOUND', message: '没有这个条目' });
  t.equal(zh.body.deducted, 0);
  t.equal(zh.headers['x-upstream'], undefined, 'nobody was asked');
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  await h.services.callLog.flush();
  t.same(
    (await h.callLog(u.userId))
      .map((r) => [r.status, r.upstream, Number(r.upstream_cost), Number(r.charged)])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    [
      [404, 'alpha', 0, 0],
      [404, null, 0, 0],
    ],
  );

  // After not_found_ttl (1 s) the upstream is asked again, and this time it knows the item.
  await new Promise((r) => setTimeout(r, 1100));
  const known = nock('https://alpha.example.com')
    .get('/v1/items/none')
    .reply(200, { item: { id: 'none' } });
  const later = await h.client.get('/api/item?id=none', { 'X-API-Key': u.key });
  t.equal(later.status, 200);
  t.same(later.body.data, { id: 'none' });
  t.ok(known.isDone());
  await h.assertReconciled();
});
