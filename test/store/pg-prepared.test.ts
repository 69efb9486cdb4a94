// The pool guard (core/store/pg-pool-guard.ts) runs statements marked PREPARED as named prepared statements and
// passes every other query to pg as it came.
import type pg from 'pg';
import t from 'tap';
import { guardPool } from '../../core/store/pg-pool-guard.js';
import { PREPARED, preparedName } from '../../core/store/pg-prepared.js';

/** A pool whose one client records what it is asked. */
function recordingPool(): { pool: pg.Pool; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const client = {
    query: (...args: unknown[]) => {
      calls.push(args);
      return Promise.resolve({ rows: [] });
    },
    release: () => undefined,
  };
  return { pool: { connect: async () => client, end: async () => undefined } as unknown as pg.Pool, calls };
}

t.test('a marked statement is named after its text; others go through unchanged', async (t) => {
  const { pool, calls } = recordingPool();
  const client = (await guardPool(pool).connect()) as unknown as { query: (...a: unknown[]) => Promise<unknown> };
  const capture = `${PREPARED}update users set balance = balance - $1 where id = $2`;
  await client.query(capture, [5000, 1]);
  await client.query(capture, [5000, 2]);
  await client.query('select 1', []);
  await client.query(`${PREPARED}select $1::int`, [1]);
  const name = preparedName(capture)!;
  t.match(name, /^tg_[0-9a-f]{24}$/);
  t.same(calls, [
    [{ name, text: capture, values: [5000, 1] }],
    [{ name, text: capture, values: [5000, 2] }],
    ['select 1', []],
    [{ name: preparedName(`${PREPARED}select $1::int`), text: `${PREPARED}select $1::int`, values: [1] }],
  ]);
  t.not(preparedName(`${PREPARED}select $1::int`), name, 'another text, another name');
  t.equal(preparedName('select 1'), undefined);
});
