// F9: PostgreSQL that hangs (accepts, never answers) or drops: every query has a deadline (connect timeout,
// statement_timeout, the client's read timeout), so calls answer 503 UNAVAILABLE with Retry-After and charge
// nothing within seconds, /api/health answers within its ping deadline and says which dependency is down, and
// both recover when the database does. PostgreSQL runs behind test/helpers/fault-proxy.ts.
import t from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { freshPgRedis, PG_URL, unreachable } from '../scale/backend.js';

const skip = await unreachable();
if (skip) t.plan(0, skip);
else {
  const backend = await freshPgRedis(); // its schema only; Redis is not used here
  const pgUrl = new URL(PG_URL);
  const proxy: FaultProxy = await startFaultProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
  const h: TestApp = await createTestApp({
    settings: {
      databaseUrl: proxy.url(PG_URL),
      databaseSchema: backend.schema,
      redisUrl: null,
      dbConnectTimeoutMs: 800,
      dbStatementTimeoutMs: 800,
      rateLimitPerSecond: 10_000,
      rateLimitBurst: 10_000,
    },
  });
  // The proxy goes first: it ends every connection the gateway still has to PostgreSQL, among them the ones frozen
  // half-dead on purpose, so closing the gateway's pool waits on none of them. Each step runs even when one before
  // it failed, so nothing is left open to keep the process alive, and a failure names itself on stderr.
  t.teardown(async () => {
    try {
      await proxy.close();
      await h.close();
    } catch (err) {
      console.error(
        'faults-postgres: closing the gateway failed',
        err,
        h.logs.filter((l) => l.message === 'closing failed'),
      );
      throw err;
    } finally {
      await backend.close();
    }
  });

  /** A request with a client-side deadline, so a hang fails the test instead of stalling it. */
  const timed = async (
    path: string,
    headers: Record<string, string> = {},
    // biome-ignore lint/suspicious/noExplicitAny: test convenience: assertions read body fields freely
  ): Promise<{ ms: number; status: number; body: any; retryAfter: string | null }> => {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${h.client.port}${path}`, { headers, signal: AbortSignal.timeout(8000) });
    return {
      ms: performance.now() - started,
      status: res.status,
      body: await res.json(),
      retryAfter: res.headers.get('retry-after'),
    };
  };

  t.test(
    'hang, then drop, then recovery: 503 within the deadlines, nothing charged, health names the database',
    async (t) => {
      const u = await h.user('1');
      const key = { 'X-API-Key': u.key };
      t.equal((await timed('/api/echo?msg=warm', key)).status, 200);
      t.ok(proxy.accepted > 0, 'PostgreSQL really goes through the proxy');

      proxy.setMode('hang');
      const health = await timed('/api/health');
      t.equal(health.status, 503);
      t.ok(health.ms < 2400, `health answers within its ping deadline (${health.ms.toFixed(0)} ms)`);
      t.match(health.body, { status: 'down', down: ['database'], database: { status: 'down', reason: 'timeout' } });
      t.notOk(
        /ECONN|127\.0\.0\.1|timeout exceeded|Query read/i.test(JSON.stringify(health.body.database)),
        'no driver error text',
      );
      const hung = await timed('/api/echo?msg=hung', key);
      t.equal(hung.status, 503, `a call during the hang: ${JSON.stringify(hung.body)}`);
      t.match(hung.body, { error: { code: 'UNAVAILABLE' }, deducted: 0 });
      t.equal(hung.retryAfter, '5');
      t.ok(hung.ms < 4000, `answered within the statement deadlines (${hung.ms.toFixed(0)} ms)`);

      proxy.setMode('drop');
      const dropped = await timed('/api/echo?msg=dropped', key);
      t.equal(dropped.status, 503);
      t.equal(dropped.body.deducted, 0);
      const downHealth = await timed('/api/health');
      t.equal(downHealth.status, 503);
      t.match(downHealth.body, { database: { status: 'down' } });

      proxy.setMode('pass');
      let back = await timed('/api/health');
      for (let i = 0; i < 30 && back.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 200));
        back = await timed('/api/health');
      }
      t.equal(back.status, 200, 'health recovers');
      let ok = await timed('/api/echo?msg=after', key);
      for (let i = 0; i < 10 && ok.status !== 200; i++) ok = await timed(`/api/echo?msg=after${i}`, key);
      t.equal(ok.status, 200, 'calls work again');
      // Only the two successful calls were charged; the held amounts of the refused ones were given back.
      t.same(await h.balance(u.userId), { balance: 980_000, held: 0 });
      await h.assertReconciled();
    },
  );

  t.test(
    'connections left half-dead (failover, partition) are discarded after one read timeout; new ones serve',
    async (t) => {
      const u = await h.user('1');
      const key = { 'X-API-Key': u.key };
      t.equal((await timed('/api/echo?msg=before-freeze', key)).status, 200);
      proxy.freezeOpen();
      const statuses: number[] = [];
      for (let i = 0; i < 8 && statuses.at(-1) !== 200; i++)
        statuses.push((await timed(`/api/echo?msg=frozen${i}`, key)).status);
      t.equal(statuses.at(-1), 200, `served again on a fresh connection (${statuses.join(',')})`);
      t.ok(
        statuses.slice(0, -1).every((s) => s === 503),
        'the calls that met a dead connection were 503',
      );
      t.equal((await timed('/api/health')).status, 200);
      t.equal((await h.balance(u.userId)).held, 0, 'no hold left behind');
    },
  );

  t.test('during a drop, /api/_balance answers 503 UNAVAILABLE and /mcp a JSON-RPC error with 503', async (t) => {
    const u = await h.user('1'); // a key never used yet: not in the key cache
    proxy.setMode('drop');
    const bal = await timed('/api/_balance', { 'X-API-Key': u.key });
    t.equal(bal.status, 503);
    t.equal(bal.retryAfter, '5');
    t.same(bal.body, {
      success: false,
      error: { code: 'UNAVAILABLE', message: 'The billing database is unavailable right now. Retry shortly.' },
      deducted: 0,
      request_id: bal.body.request_id,
    });
    const res = await h.client.post('/mcp', { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { 'x-api-key': u.key });
    t.equal(res.status, 503);
    t.equal(res.headers['retry-after'], '5');
    t.same(res.body, {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32603,
        message: 'The service or operation is unavailable right now.',
        data: {
          code: 'UNAVAILABLE',
          hint: 'Retry shortly (see Retry-After); nothing was charged.',
          request_id: res.headers['x-request-id'],
        },
      },
    });
    proxy.setMode('pass');
    let back = await timed('/api/health');
    for (let i = 0; i < 30 && back.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      back = await timed('/api/health');
    }
    t.equal(back.status, 200);
    t.equal((await timed('/api/_balance', { 'X-API-Key': u.key })).status, 200);
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  });
}
