// What /api/health says about the database when its ping fails (core/store/store-health.ts): a hang is `timeout`
// whichever deadline fires first, its own or the driver's (which one depends only on whether the pool had an idle
// connection); a refused connection is `unreachable`.
import type { Kysely } from 'kysely';
import t from 'tap';
import type { Database } from '../../core/store/schema.js';
import { createFaultFlag, DeadlineError, storeStatus } from '../../core/store/store-health.js';

const db = {} as Kysely<Database>; // never reached: the ping fails first and no fault is raised
const statusWhen = (err: Error): Promise<string> => storeStatus(db, () => Promise.reject(err), createFaultFlag(), 800);

t.test('a hang is a timeout whichever deadline fires first', async (t) => {
  t.equal(await statusWhen(new DeadlineError(800)), 'timeout', 'the ping deadline');
  t.equal(await statusWhen(new Error('timeout exceeded when trying to connect')), 'timeout', "pg's pool");
  t.equal(await statusWhen(new Error('Connection terminated due to connection timeout')), 'timeout', "pg's client");
  t.equal(await statusWhen(new Error('Query read timeout')), 'timeout', "pg's read deadline");
});

t.test('a refused or dropped connection is unreachable; a storage fault is write_failed', async (t) => {
  t.equal(await statusWhen(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), 'unreachable');
  t.equal(await statusWhen(new Error('Connection terminated unexpectedly')), 'unreachable');
  t.equal(await statusWhen(Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' })), 'write_failed');
});

t.test('a ping that answers is ok', async (t) => {
  t.equal(await storeStatus(db, () => Promise.resolve(), createFaultFlag(), 800), 'ok');
});
