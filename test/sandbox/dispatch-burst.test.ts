// Isolate calls started in one turn start together at its end, in order, each with its own outcome.
import t from 'tap';
import { inBurst } from '../../core/sandbox/dispatch-burst.js';

t.test('calls of one turn start together after it, in order; results and failures pass through', async (t) => {
  const events: string[] = [];
  const a = inBurst(async () => {
    events.push('start a');
    return 'A';
  });
  const b = inBurst(async () => {
    events.push('start b');
    throw new Error('B failed');
  });
  const c = inBurst(() => {
    events.push('start c');
    return Promise.resolve('C');
  });
  events.push('turn goes on');
  await Promise.resolve();
  events.push('microtasks done');
  t.same(events, ['turn goes on', 'microtasks done'], 'nothing started within the turn');
  t.equal(await a, 'A');
  await t.rejects(b, { message: 'B failed' });
  t.equal(await c, 'C');
  t.same(events, ['turn goes on', 'microtasks done', 'start a', 'start b', 'start c']);
});

t.test('a call queued while a burst starts goes in the next one', async (t) => {
  const order: string[] = [];
  const first = inBurst(async () => {
    order.push('first');
    void inBurst(async () => void order.push('queued by first'));
    return 1;
  });
  const second = inBurst(async () => void order.push('second'));
  await first;
  await second;
  t.same(order, ['first', 'second'], 'the burst runs what was there when it began');
  await new Promise((r) => setImmediate(r));
  t.same(order, ['first', 'second', 'queued by first'], 'the newcomer started in the next turn');
});
