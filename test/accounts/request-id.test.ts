// Request ids: unique, and ordered by the clock (they key the ledger and call-log rows a billed call writes, and
// time-ordered keys keep each commit's index entries on a few pages).
import t from 'tap';
import { newRequestId } from '../../core/accounts/secrets.js';

t.test('the shape: req_, 9 clock characters, 12 random characters', async (t) => {
  t.match(newRequestId(), /^req_[0-9A-HJKMNP-TV-Z]{9}[A-Za-z0-9_-]{12}$/);
});

t.test('100,000 ids made in a burst are all different', async (t) => {
  const ids = new Set<string>();
  for (let i = 0; i < 100_000; i++) ids.add(newRequestId());
  t.equal(ids.size, 100_000);
});

t.test('an id made in a later millisecond sorts after, as text (SQLite and PostgreSQL C collation)', async (t) => {
  for (let i = 0; i < 20; i++) {
    const a = newRequestId();
    const ms = Date.now();
    while (Date.now() === ms) {
      // wait for the clock to move
    }
    const b = newRequestId();
    t.ok(Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0, `${a} < ${b}`);
  }
});

t.test('the clock part is the time in milliseconds', async (t) => {
  const before = Date.now();
  const clock = newRequestId().slice(4, 13);
  const after = Date.now();
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const ms = [...clock].reduce((v, c) => v * 32 + alphabet.indexOf(c), 0);
  t.ok(ms >= before && ms <= after, `${ms} within [${before}, ${after}]`);
});
