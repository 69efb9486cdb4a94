// Work queued in one turn runs together at its end, in order (isolate calls and /api answers use it).
import t from 'tap';
import { atTurnEnd, startAtTurnEnd } from '../../core/kernel/turn-end.js';

t.test('calls of one turn start together after it, in order; results and failures pass through', async (t) => {
  const events: string[] = [];
  const a = startAtTurnEnd(async () => {
    events.push('start a');
    return 'A';
  });
  const b = startAtTurnEnd(async () => {
    events.push('start b');
    throw new Error('B failed');
  });
  const c = startAtTurnEnd(() => {
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
  const first = startAtTurnEnd(async () => {
    order.push('first');
    void startAtTurnEnd(async () => void order.push('queued by first'));
    return 1;
  });
  const second = startAtTurnEnd(async () => void order.push('second'));
  await first;
  await second;
  t.same(order, ['first', 'second'], 'the burst runs what was there when it began');
  await new Promise((r) => setImmediate(r));
  t.same(order, ['first', 'second', 'queued by first'], 'the newcomer started in the next turn');
});

t.test('a start that throws at once rejects its own promise only', async (t) => {
  const bad = startAtTurnEnd((): Promise<string> => {
    throw new Error('apply threw');
  });
  const good = startAtTurnEnd(async () => 'fine');
  await t.rejects(bad, { message: 'apply threw' });
  t.equal(await good, 'fine');
});

t.test('plain work runs once, after the turn, in the order queued', async (t) => {
  const seen: number[] = [];
  for (let i = 0; i < 5; i++) atTurnEnd(() => seen.push(i));
  t.same(seen, []);
  await new Promise((r) => setImmediate(r));
  t.same(seen, [0, 1, 2, 3, 4]);
});
