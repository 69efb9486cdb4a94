// F6 on a real full disk: the SQLite file lives on a 2 MiB tmpfs that a filler file then fills up (ENOSPC, as
// `dd` did in the audit). Every call answers 200 (charged) or 503 with Retry-After (uncharged), never 500;
// /api/health reports the database cannot write; deleting the filler brings both back. Needs root to mount a
// tmpfs; skipped elsewhere (faults-sqlite.test.ts covers the same path with PRAGMA max_page_count).

import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { createApiKey } from '../../core/accounts/api-keys.js';
import { createUser } from '../../core/accounts/users.js';
import { createApp } from '../../core/app.js';
import { balanceOf, postEntry } from '../../core/billing/ledger.js';
import { reconcile } from '../../core/billing/reconcile.js';
import { closeServices, composeServices } from '../../core/compose.js';
import { readSettings } from '../../core/config/env.js';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { startClient } from '../helpers/http.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-disk-'));
const mounted =
  process.platform === 'linux' && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir]).status === 0;
if (!mounted) t.plan(0, 'cannot mount a tmpfs here (needs root on Linux)');
else {
  t.teardown(() => void spawnSync('umount', ['-l', dir]));
  const settings = {
    ...readSettings({}),
    dataDir: dir,
    operationsFile: resolve('test/fixtures/operations.test.yaml'),
    sandboxPoolSize: 1,
    rateLimitPerSecond: 100000,
    rateLimitBurst: 100000,
  };
  const logger = createMemoryLogger('debug');
  const services = await composeServices(settings, {
    logger,
    pluginDirs: [resolve('plugins'), resolve('test/fixtures/plugins')],
    watchOperations: false,
  });
  const client = await startClient(createApp(services));
  t.teardown(async () => {
    await client.close();
    await closeServices(services).catch(() => undefined);
  });
  const db = services.store.db;
  const user = await createUser(db, 'disk@example.com', 'password123', 'user');
  await postEntry(db, { userId: user.id, amount: 10_000_000, kind: 'grant', ref: 'disk-grant' });
  const { secret } = await createApiKey(db, user.id, 'disk');
  const key = { 'X-API-Key': secret };

  t.test('disk full: 200 or 503, never 500; health says write_failed; space back: all recovers', async (t) => {
    t.equal((await client.get('/api/echo?msg=before', key)).status, 200);
    const filler = join(dir, 'filler');
    const fd = openSync(filler, 'w');
    const block = Buffer.alloc(16 * 1024);
    try {
      for (;;) writeSync(fd, block);
    } catch (err) {
      t.equal((err as NodeJS.ErrnoException).code, 'ENOSPC', 'the disk is full');
    } finally {
      closeSync(fd);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 400 && statuses.filter((s) => s === 503).length < 3; i++) {
      const res = await client.get(`/api/echo?msg=full-${i}-${'p'.repeat(80)}`, key);
      statuses.push(res.status);
      if (res.status === 503) {
        t.equal(res.headers['retry-after'], '5');
        t.equal(res.body.error.code, 'UNAVAILABLE');
        t.equal(res.body.deducted, 0);
      }
    }
    t.same(
      [...new Set(statuses)].filter((s) => s !== 200 && s !== 503),
      [],
      'only 200 and 503',
    );
    t.ok(statuses.includes(503), 'the full disk was hit');
    const health = await client.get('/api/health');
    t.equal(health.status, 503);
    t.match(health.body, { database: { status: 'down', reason: 'write_failed' } });

    rmSync(filler);
    const back = await client.get('/api/health');
    t.equal(back.status, 200, 'health recovers once space is back');
    t.equal((await client.get('/api/echo?msg=after', key)).status, 200);
    const charged = statuses.filter((s) => s === 200).length + 2;
    t.same(await balanceOf(db, user.id), { balance: 10_000_000 - charged * 10_000, held: 0 }, 'one charge per 200');
    t.ok((await reconcile(db)).ok, 'reconcile ok');
  });
}
