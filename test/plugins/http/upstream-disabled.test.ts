// An error rule's disable_s through the whole gateway: the operator hears of it (the upstream.disabled webhook and
// one mail to every active admin, zh and en) once per change into disabled, and the admin's operations list shows
// it. A canary's probe pinned to the disabled upstream meets the rule again and stays quiet; after the disable runs
// out, a new failure is news again.
import nock from 'nock';
import t from 'tap';
import { createCanaryRunner } from '../../../core/health/canary-runner.js';
import { upstreamHealthOf } from '../../../core/state/upstream-health.js';
import { admin } from '../../console/support.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { addOperator } from '../../helpers/operator.js';
import { ID_FIELD, itemUpstream, itemYaml, upstreamApp } from './support.js';

nock.disableNetConnect();
const YAML = itemYaml(
  ID_FIELD,
  itemUpstream(
    'alpha',
    '',
    '',
    `
        errors:
          - when: status = 401
            code: UPSTREAM_FAILED
            message: { zh: 密钥无效, en: Bad credential }
            disable_s: 8
        result: '{ "id": body.item.id }'`,
  ),
  `
    canary:
      interval: 600
      samples:
        - input: { id: probe }`,
);

let h: TestApp;
t.before(async () => {
  h = await upstreamApp(YAML);
  await addOperator(h, 'ops@example.com', ['upstream.disabled']);
});
t.teardown(() => h.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The alerts go out after the answer: wait until `n` are there (or give up after 3 s). */
async function alerts(n: number) {
  const db = h.services.store.db;
  const read = async () => ({
    hooks: (await db.selectFrom('webhook_deliveries').select(['event', 'payload']).orderBy('id').execute()).map((r) => [
      r.event,
      (JSON.parse(r.payload) as { data: Record<string, unknown> }).data,
    ]),
    // The canary's own state change mails too (operation degraded): only the upstream's count here.
    mails: await db
      .selectFrom('mail_outbox')
      .select(['to_addr', 'subject', 'text_body'])
      .where('subject', 'like', '%upstream disabled%')
      .orderBy('id')
      .execute(),
  });
  for (let i = 0; i < 60; i++) {
    const r = await read();
    if (r.hooks.length >= n && r.mails.length >= n) return r;
    await sleep(50);
  }
  return read();
}

t.test('two failures while disabled: one webhook and one mail; after it runs out, a new one', async (t) => {
  const u = await h.user('1');
  nock('https://alpha.example.com').get('/v1/items/a1').reply(401, 'no');
  const res = await h.client.get('/api/item?id=a1', { 'X-API-Key': u.key });
  t.equal(res.status, 502);
  t.same(res.body.error, { code: 'UPSTREAM_FAILED', message: 'Bad credential' });
  t.match(await upstreamHealthOf(h.services.state).down('item', 'alpha'), {
    kind: 'disabled',
    reason: 'Bad credential',
  });
  // The admin's operations list shows it disabled, until when, and its last error.
  const a = await admin(h);
  const ops = await h.client.get('/console/api/admin/operations', a.headers);
  t.equal(ops.status, 200);
  const [alpha] = ops.body.operations.find((o: { code: string }) => o.code === 'item').upstreams;
  t.match(alpha, {
    id: 'alpha',
    state: 'disabled',
    until: /^\d{4}-\d\d-\d\dT/,
    reason: 'Bad credential',
    last_error: { code: 'UPSTREAM_FAILED', at: /^\d{4}-\d\d-\d\dT/ },
    cost_per_call: 0,
    priority: 1,
    weight: 1,
    missing: [],
  });

  // The canary's probe pinned to alpha reaches it anyway, meets the rule again: logged, not announced.
  const probe = nock('https://alpha.example.com').get('/v1/items/probe').reply(401, 'no');
  await createCanaryRunner(h.services).runNow('item', 'upstream:alpha');
  t.ok(probe.isDone());
  t.equal(h.logs.filter((l) => l.message === 'upstream disabled').length, 2, 'each failure is logged');

  const first = await alerts(1);
  await sleep(200); // room for a wrong second one
  const once = await alerts(2);
  t.equal(once.hooks.length, 1, 'one webhook');
  t.equal(once.mails.length, 1, 'one mail');
  const data = first.hooks[0][1] as Record<string, unknown>;
  t.match(first.hooks[0], [
    'upstream.disabled',
    { operation: 'item', upstream: 'alpha', code: 'UPSTREAM_FAILED', seconds: 8, reason: 'Bad credential' },
  ]);
  const until = String(data.until);
  t.match(until, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'until is an ISO time');
  t.same(once.mails[0], {
    to_addr: 'ops@example.com',
    subject: '[Tollgate] item/alpha 上游已停用 / upstream disabled (UPSTREAM_FAILED)',
    text_body:
      `接口 item 的上游 alpha 因错误规则 UPSTREAM_FAILED（Bad credential）停用 8 秒，至 ${until}。请检查它的密钥或额度。\n` +
      `Upstream alpha of operation item is disabled by its error rule UPSTREAM_FAILED (Bad credential) for 8 s, until ${until}. Check its credential or quota.\n`,
  });

  // The disable runs out; the trial call meets the rule again: news again.
  await sleep(Date.parse(until) - Date.now() + 300);
  nock('https://alpha.example.com').get('/v1/items/a2').reply(401, 'no');
  const again = await h.client.get('/api/item?id=a2', { 'X-API-Key': u.key });
  t.equal(again.status, 502);
  const twice = await alerts(3);
  t.equal(twice.hooks.length, 2);
  // Every active admin: ops@ and the admin made above to read the operations list.
  t.equal(twice.mails.length, 3);
  t.ok(twice.mails.slice(1).some((m) => m.to_addr === 'ops@example.com'));
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});
