// CALL_LOG_RETENTION_DAYS (F12): old call-log rows go, oldest first, in batches; the retention window, the
// ledger and the window spend caps are counted from are never touched.
import t from 'tap';
import { readSettings } from '../../core/config/env.js';
import { pruneCallLog, startCallLogRetention } from '../../core/store/call-log-retention.js';
import { createTestApp } from '../helpers/create-test-app.js';

const DAY = 24 * 3600 * 1000;

t.test('pruneCallLog deletes rows before the cutoff in batches and keeps the rest and the ledger', async (t) => {
  const h = await createTestApp();
  t.teardown(() => h.close());
  const u = await h.user(1);
  const db = h.services.store.db;
  const now = Date.now();
  const row = (i: number, at: number) => ({
    request_id: `req_ret_${i}`,
    user_id: u.userId,
    key_id: null,
    operation: 'echo',
    status: 200,
    error_code: null,
    charged: 0,
    cached: 0,
    free_reason: null,
    duration_ms: 1,
    plugin_ms: null,
    ip: null,
    created_at: at,
  });
  await db
    .insertInto('call_log')
    .values([...Array.from({ length: 7 }, (_, i) => row(i, now - (40 - i) * DAY)), row(7, now - DAY), row(8, now)])
    .execute();
  t.equal(await pruneCallLog(db, now - 30 * DAY, 3), 7, 'seven old rows, three batches');
  const left = await db.selectFrom('call_log').select('request_id').orderBy('id').execute();
  t.same(
    left.map((r) => r.request_id),
    ['req_ret_7', 'req_ret_8'],
  );
  t.equal(await pruneCallLog(db, now - 30 * DAY, 3), 0, 'nothing more to do');
  t.equal((await h.ledger(u.userId)).length, 1, 'the ledger is untouched');
});

t.test('CALL_LOG_RETENTION_DAYS: 90 by default, 0 keeps everything; any value keeps at least 2 days', async (t) => {
  t.equal(readSettings({}).callLogRetentionDays, 90);
  t.equal(readSettings({ CALL_LOG_RETENTION_DAYS: '90' }).callLogRetentionDays, 90);
  t.throws(() => readSettings({ CALL_LOG_RETENTION_DAYS: '-1' }), /CALL_LOG_RETENTION_DAYS must be an integer >= 0/);
  const h = await createTestApp();
  t.teardown(() => h.close());
  const stop = startCallLogRetention(h.services.store.db, 0, h.services.logger);
  stop();
  t.pass('a retention of 0 starts nothing');
});
