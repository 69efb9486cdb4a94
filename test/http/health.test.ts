// /api/health: 200 with the database reachable, 503 with status "down" once the database is gone; /api calls
// then answer 503 UNAVAILABLE (retry later), not 500.
import t from 'tap';
import { createTestApp } from '../helpers/create-test-app.js';

t.test('health turns 503 when the database is down', async (t) => {
  const h = await createTestApp();
  t.teardown(() => h.close()); // closing an already destroyed database is a no-op in Kysely
  const u = await h.user('1');
  const up = await h.client.get('/api/health');
  t.equal(up.status, 200);
  t.equal(up.body.database.status, 'ok');
  // Really close the database connection underneath the running app.
  await h.services.store.db.destroy();
  const down = await h.client.get('/api/health');
  t.equal(down.status, 503);
  t.match(down.body, { status: 'down', database: { status: 'down' } });
  // Which dependency and how it fails; never the driver's error text (F19).
  t.match(down.body, { down: ['database'], database: { reason: 'unreachable' } });
  t.notOk('error' in down.body.database, 'no error text');
  t.equal(down.headers['retry-after'], '5');
  // Looking up the key or placing the hold fails on the closed database: 503, not 500, and nothing charged.
  const call = await h.client.get('/api/echo?msg=x', { 'X-API-Key': u.key });
  t.equal(call.status, 503);
  t.equal(call.body.error.code, 'UNAVAILABLE');
  t.equal(call.body.deducted, 0);
  t.equal(call.headers['retry-after'], '5');
});
