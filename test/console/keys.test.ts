// /console/api/keys: several keys per user, the secret shown once, strict limit validation, and changes that
// take effect on the key's very next call.
import t from 'tap';
import { sha256Hex } from '../../core/accounts/secrets.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { consoleUser } from './support.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const patch = (path: string, body: unknown, headers: Record<string, string>) =>
  h.client.request(path, { method: 'PATCH', body, headers });
const del = (path: string, headers: Record<string, string>) => h.client.request(path, { method: 'DELETE', headers });

t.test('create shows the secret once; list shows id, prefix, name, dates, status and limits', async (t) => {
  const u = await consoleUser(h, '1');
  const res = await h.client.post(
    '/console/api/keys',
    {
      name: 'server',
      allowed_codes: ['echo', 'item'],
      ip_allow: ['10.0.0.0/8', '2001:db8::/32', '192.168.1.7'],
      expires_at: '2099-01-31T00:00:00Z',
      rate_limit_per_sec: 5,
      rate_limit_burst: 10,
      max_concurrency: 3,
      daily_spend_cap: 2.5,
    },
    u.headers,
  );
  t.equal(res.status, 201);
  t.match(res.body.secret, /^sk_[A-Za-z0-9_-]{43}$/);
  const expectedKey = {
    id: res.body.key.id,
    name: 'server',
    prefix: res.body.secret.slice(0, 11),
    status: 'active',
    created_at: res.body.key.created_at,
    last_used_at: null,
    limits: {
      allowed_codes: ['echo', 'item'],
      ip_allow: ['10.0.0.0/8', '2001:db8::/32', '192.168.1.7'],
      expires_at: '2099-01-31T00:00:00.000Z',
      rate_limit_per_sec: 5,
      rate_limit_burst: 10,
      max_concurrency: 3,
      daily_spend_cap: 2.5,
    },
  };
  t.same(res.body.key, expectedKey);
  const row = await h.services.store.db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', res.body.key.id)
    .executeTakeFirstOrThrow();
  t.equal(row.key_hash, sha256Hex(res.body.secret), 'only the hash is stored');
  t.equal(Number(row.daily_spend_cap), 2_500_000, 'cap stored in micro-TOKEN');
  const list = await h.client.get('/console/api/keys', u.headers);
  t.equal(list.status, 200);
  t.equal(list.body.keys.length, 2, 'the helper key and the new one');
  t.same(list.body.keys[1], expectedKey);
  t.notOk(JSON.stringify(list.body).includes(res.body.secret), 'the secret is never listed');
  t.notOk(JSON.stringify(list.body).includes('key_hash'));
});

t.test('keys of other users are invisible and untouchable', async (t) => {
  const a = await consoleUser(h, '1');
  const b = await consoleUser(h, '1');
  t.equal((await patch(`/console/api/keys/${a.keyId}`, { disabled: true }, b.headers)).status, 404);
  const d = await del(`/console/api/keys/${a.keyId}`, b.headers);
  t.equal(d.status, 404);
  t.same(d.body.error, { code: 'RESOURCE_NOT_FOUND', message: `There is no API key ${a.keyId}.` });
  t.equal((await h.client.get('/api/echo?msg=x', { 'X-API-Key': a.key })).status, 200);
  t.equal((await del('/console/api/keys/abc', b.headers)).status, 404);
});

const invalidLimits: Array<[string, Record<string, unknown>, string]> = [
  ['unknown code', { allowed_codes: ['echo', 'nope'] }, "'allowed_codes' names operations that do not exist: nope."],
  ['empty codes', { allowed_codes: [] }, "'allowed_codes' must be null or a list of 1 to 100 non-empty strings."],
  [
    'bad cidr',
    { ip_allow: ['10.0.0.0/33'] },
    "'ip_allow' holds entries that are not IP addresses or CIDR blocks: 10.0.0.0/33.",
  ],
  [
    'not an ip',
    { ip_allow: ['example.com'] },
    "'ip_allow' holds entries that are not IP addresses or CIDR blocks: example.com.",
  ],
  [
    'bad date',
    { expires_at: 'next week' },
    "'expires_at' must be an ISO 8601 date, e.g. 2030-01-31 or 2030-01-31T12:00:00Z.",
  ],
  ['impossible date', { expires_at: '2030-02-31' }, "'expires_at' is not a real date: 2030-02-31."],
  ['past date', { expires_at: '2001-01-01' }, "'expires_at' must be in the future."],
  ['rate 0', { rate_limit_per_sec: 0 }, "'rate_limit_per_sec' must be an integer from 1 to 10000."],
  ['rate float', { rate_limit_per_sec: 1.5 }, "'rate_limit_per_sec' must be an integer from 1 to 10000."],
  [
    'burst below rate',
    { rate_limit_per_sec: 10, rate_limit_burst: 5 },
    "'rate_limit_burst' must be at least 'rate_limit_per_sec'.",
  ],
  ['concurrency', { max_concurrency: '3' }, "'max_concurrency' must be an integer from 1 to 1000."],
  [
    'cap 7 decimals',
    { daily_spend_cap: 0.0000001 },
    "'daily_spend_cap' must be a TOKEN amount from -1000000000 to 1000000000 with at most 6 decimals, e.g. 12.5.",
  ],
  ['cap zero', { daily_spend_cap: 0 }, "'daily_spend_cap' must be greater than 0 (use null for no cap)."],
  [
    'typo',
    { max_concurency: 3 },
    "Unknown field 'max_concurency'; allowed: name, allowed_codes, ip_allow, expires_at, rate_limit_per_sec, rate_limit_burst, max_concurrency, daily_spend_cap.",
  ],
  ['long name', { name: 'x'.repeat(65) }, "'name' must be at most 64 characters."],
];

for (const [name, body, message] of invalidLimits) {
  t.test(`invalid limit (${name}) is 400 INVALID_INPUT and creates nothing`, async (t) => {
    const u = await consoleUser(h, 0);
    const res = await h.client.post('/console/api/keys', body, u.headers);
    t.equal(res.status, 400);
    t.same(res.body.error, { code: 'INVALID_INPUT', message });
    t.equal((await h.client.get('/console/api/keys', u.headers)).body.keys.length, 1);
  });
}

t.test('disable, enable, change limits and delete take effect on the next call', async (t) => {
  const u = await consoleUser(h, '1');
  const path = `/console/api/keys/${u.keyId}`;
  const call = () => h.client.get('/api/echo?msg=k', { 'X-API-Key': u.key });
  t.equal((await call()).status, 200, 'the key is cached now');

  const off = await patch(path, { disabled: true }, u.headers);
  t.equal(off.status, 200);
  t.equal(off.body.key.status, 'disabled');
  const denied = await call();
  t.equal(denied.status, 403);
  t.same(denied.body.error, { code: 'KEY_DISABLED', message: 'This API key is disabled.' });

  t.equal((await patch(path, { disabled: false, name: 'renamed' }, u.headers)).body.key.name, 'renamed');
  t.equal((await call()).status, 200);

  const limited = await patch(path, { allowed_codes: ['item'] }, u.headers);
  t.same(limited.body.key.limits.allowed_codes, ['item']);
  t.equal((await call()).body.error.code, 'OPERATION_NOT_ALLOWED');
  await patch(path, { allowed_codes: null }, u.headers);
  t.equal((await call()).status, 200, 'null clears a limit');

  t.equal((await patch(path, {}, u.headers)).body.error.message, 'Nothing to change: send name, disabled or a limit.');
  t.equal((await patch(path, { disabled: 'yes' }, u.headers)).body.error.message, "'disabled' must be true or false.");

  const gone = await del(path, u.headers);
  t.equal(gone.status, 200);
  t.same(gone.body, { deleted: true, id: u.keyId });
  const after = await call();
  t.equal(after.status, 401);
  t.equal(after.body.error.code, 'INVALID_API_KEY');
  t.equal((await h.client.get('/console/api/keys', u.headers)).body.keys.length, 0);
  t.equal((await del(path, u.headers)).status, 404, 'deleting twice is 404');
  t.same(await h.balance(u.userId), { balance: 970_000, held: 0 }, 'three successful calls, nothing else charged');
});

t.test('a new key works at once and last_used_at is reported after use', async (t) => {
  const u = await consoleUser(h, '1');
  const created = await h.client.post('/console/api/keys', { name: 'second' }, u.headers);
  t.equal((await h.client.get('/api/echo?msg=n', { 'X-API-Key': created.body.secret })).status, 200);
  await h.services.callLog.flush();
  const list = await h.client.get('/console/api/keys', u.headers);
  const k = list.body.keys.find((x: { id: number }) => x.id === created.body.key.id);
  t.match(k.last_used_at, /^\d{4}-\d\d-\d\dT/);
  t.equal(list.body.keys.find((x: { id: number }) => x.id === u.keyId).last_used_at, null);
});

t.test('keys routes need a login', async (t) => {
  const res = await h.client.post('/console/api/keys', { name: 'x' });
  t.equal(res.status, 401);
  t.equal(res.body.error.code, 'UNAUTHORIZED');
});
