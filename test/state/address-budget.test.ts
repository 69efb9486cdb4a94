// The per-address budget of refused requests: a token bucket per address group, bounded in memory.
import t from 'tap';
import { createAddressBudget } from '../../core/state/address-budget.js';

t.test('a burst, then the rate; the wait is what Retry-After says; wait() takes nothing', async (t) => {
  const b = createAddressBudget({ ratePerSecond: 2, burst: 3 });
  const now = 1_000_000;
  t.same(
    [1, 2, 3].map(() => b.take('198.51.100.1', now)),
    [0, 0, 0],
  );
  t.equal(b.wait('198.51.100.1', now), 1);
  t.equal(b.take('198.51.100.1', now), 1, 'spent: wait a second');
  t.equal(b.take('198.51.100.2', now), 0, 'another address has its own bucket');
  t.equal(b.wait('198.51.100.1', now + 500), 0, 'half a second refills one token at 2/s');
  t.equal(b.wait('198.51.100.1', now + 500), 0, 'wait() took none');
  t.equal(b.take('198.51.100.1', now + 500), 0);
  t.equal(b.take('198.51.100.1', now + 500), 1);
  t.equal(b.wait('never-seen', now), 0);
});

t.test('at most maxAddresses buckets: the least recently refused is forgotten first', async (t) => {
  const b = createAddressBudget({ ratePerSecond: 1, burst: 1, maxAddresses: 2 });
  const now = 5_000_000;
  b.take('a', now);
  b.take('b', now);
  b.take('a', now); // a: spent, and now the most recent
  b.take('c', now); // forgets b
  t.equal(b.wait('a', now), 1, 'a is remembered');
  t.equal(b.wait('b', now), 0, 'b was forgotten: a full bucket again');
  t.equal(b.wait('c', now), 1);
});
