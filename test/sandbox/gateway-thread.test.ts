// An offline plugin's calls run on the gateway thread while its isolate's thread is quiet
// (core/sandbox/isolate-batch.ts, thread-activity.ts). What must hold: the same outcomes, and the event loop is
// never held longer than the budget, whatever the plugin does: work it leaves on its isolate's thread, a loop,
// an allocation without bound.
import t from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { IsolateBatch, SYNC_BUDGET_MS } from '../../core/sandbox/isolate-batch.js';
import { createSandbox, type Sandbox } from '../../core/sandbox/sandbox.js';
import { FIXTURES, fakeResolver, req } from './helpers.js';

let sb: Sandbox;
t.beforeEach(async () => {
  sb = await createSandbox({
    pluginDirs: [FIXTURES],
    logger: createMemoryLogger('debug'),
    poolSize: 1,
    maxPerIsolate: 8,
    resolver: fakeResolver(),
  });
});
t.afterEach(() => sb.close());

// Every batch made, to count where they ran, and every call that left its batch to run alone.
const batchers = new Set<IsolateBatch>();
let ranAlone = 0;
const run = IsolateBatch.prototype.run;
IsolateBatch.prototype.run = function (
  this: IsolateBatch,
  ...[callArgs, timeoutMs, one]: Parameters<IsolateBatch['run']>
) {
  batchers.add(this);
  return run.call(this, callArgs, timeoutMs, () => {
    ranAlone++;
    return one();
  });
};
t.teardown(() => {
  IsolateBatch.prototype.run = run;
});
const here = (): number => [...batchers].reduce((n, b) => n + b.batchesHere, 0);

/** The longest the event loop went without running a 5 ms interval while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<[T, number]> {
  let last = performance.now();
  let worst = 0;
  const beat = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  try {
    return [await work(), Math.round(Math.max(worst, performance.now() - last))];
  } finally {
    clearInterval(beat);
  }
}

const normal = { ok: true, data: { normal: true } };

/** Calls that only compute, each in a turn of its own, until one has run on the gateway thread. */
async function warm(plugin: string): Promise<void> {
  const before = here();
  for (let i = 0; i < 50 && here() === before; i++) {
    await new Promise((r) => setTimeout(r, 5)); // time for the barrier after the last call on the isolate's thread
    const { outcome } = await sb.run(req(plugin, { mode: 'normal' }));
    if (JSON.stringify(outcome) !== JSON.stringify(normal)) throw new Error(`warm-up: ${JSON.stringify(outcome)}`);
  }
  if (here() === before) throw new Error('never ran on the gateway thread');
}

t.test('calls that only compute run on the gateway thread, with the outcomes they have alone', async (t) => {
  await warm('bad-outcome');
  const before = here();
  const inputs = [{ mode: 'normal' }, { kind: 'no-data' }, { kind: 'bad-code' }, { kind: 'not-cloneable' }];
  const outcomes = (await Promise.all(inputs.map((input) => sb.run(req('bad-outcome', input))))).map((r) => r.outcome);
  t.equal(here(), before + 1, 'one batch on the gateway thread');
  t.same(outcomes[0], normal);
  for (const o of outcomes.slice(1)) t.match(o, { ok: false, code: 'INTERNAL' });
});

t.test('a value JSON would write otherwise than a copy leaves the batch: that call runs alone', async (t) => {
  await warm('bad-outcome');
  const [hereBefore, aloneBefore] = [here(), ranAlone];
  const kinds = ['dated', 'own-to-json', 'cycle', 'null-proto'];
  const inputs = [...kinds.map((kind) => ({ kind })), { kind: 'deep', depth: 62 }, { kind: 'deep', depth: 63 }];
  const [dated, toJson, cycle, nullProto, deepInside, deepPast] = (
    await Promise.all(inputs.map((input) => sb.run(req('bad-outcome', input))))
  ).map((r) => r.outcome as { ok: boolean; data: Record<string, unknown>; code?: string });
  t.equal(here(), hereBefore + 1, 'one batch on the gateway thread');
  t.equal(ranAlone, aloneBefore + 4, 'the Date, the toJSON, the cycle and the value past the depth ran alone');
  t.ok(dated.data.when instanceof Date, 'a Date stays a Date, as the copy keeps it');
  t.equal((dated.data.when as Date).getTime(), 0);
  // Alone, the function cannot be copied out: the plugin's fault, as for any function in a result.
  t.match(toJson, { ok: false, code: 'INTERNAL' });
  t.equal(cycle.data.self, cycle.data, 'the cycle as the copy keeps it');
  t.same(nullProto, { ok: true, data: { x: 1 } }, 'an object without a prototype is plain data: it stayed');
  const depth = (v: unknown): number => {
    let n = 0;
    for (let x = v as Record<string, unknown>; x.d !== undefined; x = x.d as Record<string, unknown>) n++;
    return n;
  };
  t.equal(depth(deepInside.data), 62, 'data nested 62 deep (objects 64 deep with the outcome): written in the batch');
  t.equal(depth(deepPast.data), 63, 'one deeper: past the walk, run alone, the same value');
});

t.test('a new isolate: the first turn waits for its barrier, then it and later single calls run here', async (t) => {
  const sent = (): number => [...batchers].reduce((n, b) => n + b.batchesSent, 0);
  const [hereBefore, sentBefore] = [here(), sent()];
  const first = await Promise.all([1, 2, 3].map(() => sb.run(req('bad-outcome', { mode: 'normal' }))));
  t.same(
    first.map((r) => r.outcome),
    Array(3).fill(normal),
  );
  t.equal(here(), hereBefore + 1, 'the first turn ran on the gateway thread');
  for (let i = 0; i < 3; i++) await sb.run(req('bad-outcome', { mode: 'normal' }));
  t.equal(here(), hereBefore + 4, 'so did each call alone in its turn');
  t.equal(sent(), sentBefore, 'nothing went to the isolate thread');
});

t.test('with room for two isolates, the calls of a turn still go to the quiet one: one batch', async (t) => {
  const two = await createSandbox({
    pluginDirs: [FIXTURES],
    logger: createMemoryLogger('debug'),
    poolSize: 2,
    resolver: fakeResolver(),
  });
  t.teardown(() => two.close());
  for (let i = 0; i < 3; i++) await two.run(req('bad-outcome', { mode: 'normal' }));
  const before = here();
  const outcomes = await Promise.all([1, 2, 3, 4, 5, 6].map(() => two.run(req('bad-outcome', { mode: 'normal' }))));
  t.same(
    outcomes.map((r) => r.outcome),
    Array(6).fill(normal),
  );
  t.equal(here(), before + 1, 'six calls, one batch on the gateway thread');
});

t.test('work a plugin leaves on its isolate thread never holds the gateway thread', async (t) => {
  await warm('bad-outcome');
  // Answered on the gateway thread; after its host call comes back it keeps the isolate's thread busy 400 ms.
  const later = await sb.run(req('bad-outcome', { kind: 'busy-later', ms: 400 }));
  t.same(later.outcome, { ok: true, data: { later: true } });
  const [outcomes, stall] = await longestStall(async () => {
    const out: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      out.push((await sb.run(req('bad-outcome', { mode: 'normal' }, { timeoutMs: 2000 }))).outcome);
      await new Promise((r) => setTimeout(r, 20));
    }
    return out;
  });
  t.same(outcomes, Array(6).fill(normal), 'the calls waited for the isolate thread, on the isolate thread');
  t.ok(stall < 150, `the event loop was never held (longest stall ${stall} ms)`);
});

t.test('a loop is stopped at the budget on the gateway thread and meets its deadline on its own', async (t) => {
  await warm('loop-forever');
  const started = Date.now();
  const [{ outcome }, stall] = await longestStall(() => sb.run(req('loop-forever')));
  const ms = Date.now() - started;
  t.same(outcome, { ok: false, code: 'INTERNAL', message: 'plugin loop-forever failed; quote the request id' });
  t.ok(ms >= 250 && ms < 3000, `finished in ${ms} ms (deadline 300)`);
  t.ok(stall < SYNC_BUDGET_MS + 100, `the event loop was held ${stall} ms at most (budget ${SYNC_BUDGET_MS})`);
  t.same((await sb.run(req('loop-forever', { mode: 'normal' }))).outcome, normal, 'the next call succeeds');
});

t.test('an allocation without bound on the gateway thread: INTERNAL, and the plugin works again', async (t) => {
  await warm('alloc-forever');
  const { outcome } = await sb.run(req('alloc-forever'));
  t.match(outcome, { ok: false, code: 'INTERNAL', message: /plugin alloc-forever failed/ });
  t.same((await sb.run(req('alloc-forever', { mode: 'normal' }))).outcome, normal, 'the next call succeeds');
});
