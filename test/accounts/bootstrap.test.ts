// First start: an admin, a demo user with exactly 10 TOKEN (one grant row) and a working demo key, once —
// also when several processes start on one empty database at the same moment.
import t from 'tap';
import { loadKeyIdentity } from '../../core/accounts/api-keys.js';
import { sha256Hex } from '../../core/accounts/secrets.js';
import { balanceOf } from '../../core/billing/ledger.js';
import { bootstrapFirstStart } from '../../core/cli/first-start.js';
import { openStore } from '../../core/store/database.js';
import { migrateToLatest } from '../../core/store/migrate.js';

t.test('creates admin, demo user with 10 TOKEN and a key exactly once under a race', async (t) => {
  const store = openStore({ databaseUrl: null, dataDir: '.', sqliteFile: ':memory:' });
  t.teardown(() => store.close());
  await migrateToLatest(store.db as never, 'sqlite');
  const results = await Promise.all([
    bootstrapFirstStart(store.db, {}),
    bootstrapFirstStart(store.db, {}),
    bootstrapFirstStart(store.db, {}),
  ]);
  const winners = results.filter((r) => r !== null);
  t.equal(winners.length, 1, 'one process bootstraps, the others see a started database');
  const first = winners[0]!;
  t.equal(first.adminEmail, 'admin@localhost');
  t.match(first.demoKey, /^sk_[A-Za-z0-9_-]{43}$/);
  const users = await store.db.selectFrom('users').select(['email', 'role']).orderBy('id').execute();
  t.same(users, [
    { email: 'admin@localhost', role: 'admin' },
    { email: 'demo@localhost', role: 'user' },
  ]);
  const identity = await loadKeyIdentity(store.db, sha256Hex(first.demoKey));
  t.ok(identity, 'the printed demo key authenticates');
  t.same(await balanceOf(store.db, identity!.userId), { balance: 10_000_000, held: 0 });
  t.equal(await bootstrapFirstStart(store.db, {}), null, 'a later start does nothing');
});
