// Calls of one turn to an offline plugin's isolate go in one isolated-vm call (core/sandbox/isolate-batch.ts), on
// the gateway thread when the isolate's thread is quiet; what the batch cannot pass on exactly is run again alone.
// A real isolate; `many`, `begin` and `collect` have the bootstrap's shape.
import ivm from 'isolated-vm';
import t, { type Test } from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import {
  type BatchEntry,
  type CallArgs,
  HOLD_OFF_MS,
  IsolateBatch,
  SYNC_BUDGET_MS,
} from '../../core/sandbox/isolate-batch.js';
import { createSandbox } from '../../core/sandbox/sandbox.js';
import { ThreadActivity } from '../../core/sandbox/thread-activity.js';
import { FIXTURES, fakeResolver, req } from './helpers.js';

async function isolateWithEntry(t: Test): Promise<{ entry: BatchEntry; batches: () => Promise<number> }> {
  const isolate = new ivm.Isolate({ memoryLimit: 32 });
  t.teardown(() => isolate.dispose());
  const context = await isolate.createContext();
  await context.eval(`
    globalThis.batches = 0;
    const invoke = async (id, input) => {
      if (input.throws) throw new TypeError('bad ' + input.n);
      if (input.throwsText) throw 'not an Error';
      if (input.spins) for (;;) {}
      if (input.never) return new Promise(() => undefined);
      return { ok: true, data: { n: input.n, id } };
    };
    // As the bootstrap's (bridge.ts): a value leaves as JSON text.
    const settled = (p) => p.then((value) => [true, JSON.stringify(value)], (e) =>
      e instanceof Error ? [false, { message: String(e.message), stack: String(e.stack) }] : [false]);
    globalThis.many = (calls) => { batches++; return Promise.all(calls.map((c) => settled(invoke(c[0], c[1])))); };
    let begun = [];
    globalThis.begin = (calls) => {
      batches++;
      const results = calls.map(() => [false]);
      begun = results;
      calls.forEach((c, i) => settled(invoke(c[0], c[1])).then((r) => { results[i] = r; }));
    };
    globalThis.collect = () => { const r = begun; begun = []; return r; };
  `);
  const ref = async (name: string) => (await context.global.get(name, { reference: true })) as never;
  return {
    entry: { many: await ref('many'), begin: await ref('begin'), collect: await ref('collect') },
    batches: async () => (await context.global.get('batches')) as number,
  };
}

/** Keeps batches on the isolate's thread (the path these first tests are about). */
function offGatewayThread(): ThreadActivity {
  const activity = new ThreadActivity();
  activity.holdOff(60_000);
  return activity;
}

const args = (id: number, input: Record<string, unknown>): CallArgs => [id, input, {}, 'op', null, 1];

/** Stand-ins for a call run alone: each answers `alone <n>` and records that it ran. */
function standIns(): { ran: number[]; alone: (n: number) => () => Promise<unknown> } {
  const ran: number[] = [];
  return {
    ran,
    alone: (n) => async () => {
      ran.push(n);
      return `alone ${n}`;
    },
  };
}

t.test('the calls of one turn share one call into the isolate, each gets its own value', async (t) => {
  const { entry, batches } = await isolateWithEntry(t);
  const batch = new IsolateBatch(entry, offGatewayThread());
  let alone = 0;
  const fallback = async (): Promise<unknown> => {
    alone++;
    return 'alone';
  };
  const values = await Promise.all([1, 2, 3].map((n) => batch.run(args(n, { n }), 1000, fallback)));
  t.same(
    values,
    [1, 2, 3].map((n) => ({ ok: true, data: { n, id: n } })),
  );
  t.equal(await batches(), 1);
  t.equal(alone, 0);
  // A turn with one call takes the usual one-call path.
  t.equal(await batch.run(args(4, { n: 4 }), 1000, fallback), 'alone');
  t.equal(await batches(), 1);
});

t.test('an Error thrown by one call rejects that call only, with its message; other throws run alone', async (t) => {
  const { entry, batches } = await isolateWithEntry(t);
  const batch = new IsolateBatch(entry, offGatewayThread());
  const ran: number[] = [];
  const alone = (n: number) => async (): Promise<unknown> => {
    ran.push(n);
    throw new Error(`alone ${n}`);
  };
  const results = await Promise.allSettled([
    batch.run(args(1, { n: 1 }), 1000, alone(1)),
    batch.run(args(2, { n: 2, throws: true }), 1000, alone(2)),
    batch.run(args(3, { n: 3, throwsText: true }), 1000, alone(3)),
  ]);
  t.same(results[0], { status: 'fulfilled', value: { ok: true, data: { n: 1, id: 1 } } });
  t.equal(results[1].status, 'rejected');
  t.equal((results[1] as PromiseRejectedResult).reason.message, 'bad 2');
  t.match((results[1] as PromiseRejectedResult).reason.stack, /TypeError: bad 2/);
  t.equal((results[2] as PromiseRejectedResult).reason.message, 'alone 3', 'not an Error: asked again alone');
  t.same(ran, [3]);
  t.equal(await batches(), 1);
});

t.test('a batch that fails as a whole (a synchronous timeout) runs every call again alone', async (t) => {
  const { entry } = await isolateWithEntry(t);
  const batch = new IsolateBatch(entry, offGatewayThread());
  const { ran, alone } = standIns();
  const values = await Promise.all([
    batch.run(args(1, { n: 1 }), 200, alone(1)),
    batch.run(args(2, { n: 2, spins: true }), 50, alone(2)),
  ]);
  t.same(values, ['alone 1', 'alone 2']);
  t.same(ran, [1, 2]);
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
}

t.test('on a quiet isolate the calls of a turn run on the gateway thread, with the same outcomes', async (t) => {
  const { entry, batches } = await isolateWithEntry(t);
  const activity = new ThreadActivity();
  const batch = new IsolateBatch(entry, activity);
  t.notOk(activity.quiet, 'not quiet before its first barrier has come back');
  await until(() => activity.quiet);
  t.ok(activity.quiet);
  const { ran, alone } = standIns();
  const results = await Promise.allSettled([
    batch.run(args(1, { n: 1 }), 1000, alone(1)),
    batch.run(args(2, { n: 2 }), 1000, alone(2)),
    batch.run(args(3, { n: 3, throws: true }), 1000, alone(3)),
    batch.run(args(4, { n: 4, throwsText: true }), 1000, alone(4)),
    batch.run(args(5, { n: 5, never: true }), 1000, alone(5)),
  ]);
  t.same(results.slice(0, 2), [
    { status: 'fulfilled', value: { ok: true, data: { n: 1, id: 1 } } },
    { status: 'fulfilled', value: { ok: true, data: { n: 2, id: 2 } } },
  ]);
  t.equal((results[2] as PromiseRejectedResult).reason.message, 'bad 3');
  t.match((results[2] as PromiseRejectedResult).reason.stack, /TypeError: bad 3/);
  t.same(results.slice(3), [
    { status: 'fulfilled', value: 'alone 4' },
    { status: 'fulfilled', value: 'alone 5' },
  ]);
  t.same(ran, [4, 5], 'a thrown non-Error and a call still waiting run alone');
  t.equal(batch.batchesHere, 1);
  t.equal(batch.batchesSent, 0);
  // The calls run alone went to the isolate's thread: quiet again once a barrier has come back after them.
  t.notOk(activity.quiet);
  await until(() => activity.quiet);
  // A turn with one call runs here too.
  t.same(await batch.run(args(6, { n: 6 }), 1000, alone(6)), { ok: true, data: { n: 6, id: 6 } });
  t.equal(batch.batchesHere, 2);
  t.equal(await batches(), 2);
});

t.test('a batch past its budget on the gateway thread runs again alone and holds the isolate off it', async (t) => {
  const { entry } = await isolateWithEntry(t);
  const activity = new ThreadActivity();
  const batch = new IsolateBatch(entry, activity);
  await until(() => activity.quiet);
  const { ran, alone } = standIns();
  const started = Date.now();
  const values = await Promise.all([
    batch.run(args(1, { n: 1 }), 5000, alone(1)),
    batch.run(args(2, { n: 2, spins: true }), 5000, alone(2)),
  ]);
  const ms = Date.now() - started;
  t.same(values, ['alone 1', 'alone 2']);
  t.same(ran, [1, 2]);
  t.ok(
    ms >= SYNC_BUDGET_MS - 1 && ms < 1000,
    `stopped at the ${SYNC_BUDGET_MS} ms budget, not its deadline (${ms} ms)`,
  );
  t.notOk(activity.quiet, `held off the gateway thread for ${HOLD_OFF_MS} ms`);
  t.equal(batch.batchesHere, 0);
  t.same(
    await Promise.all([batch.run(args(3, { n: 3 }), 1000, alone(3)), batch.run(args(4, { n: 4 }), 1000, alone(4))]),
    [3, 4].map((n) => ({ ok: true, data: { n, id: n } })),
  );
  t.equal(batch.batchesSent, 1, 'the next turn went to the isolate thread');
});

t.test(
  "through the sandbox on the isolate's thread: one isolated-vm call for a turn of an offline plugin, the same outcomes as alone",
  async (t) => {
    const logger = createMemoryLogger('debug');
    const sb = await createSandbox({
      pluginDirs: [FIXTURES],
      logger,
      poolSize: 1,
      maxPerIsolate: 8,
      resolver: fakeResolver(),
    });
    t.teardown(() => sb.close());
    const inputs = [{ mode: 'normal' }, { kind: 'no-data' }, { kind: 'bad-code' }, { mode: 'normal' }];
    // The isolated-vm calls made: batches (their own count) and calls run alone (counted here).
    let alone = 0;
    const batchers = new Set<IsolateBatch>();
    const applies = (): number => alone + [...batchers].reduce((n, b) => n + b.batchesSent, 0);
    const run = IsolateBatch.prototype.run;
    IsolateBatch.prototype.run = function (
      this: IsolateBatch,
      ...[callArgs, timeoutMs, one]: Parameters<IsolateBatch['run']>
    ) {
      batchers.add(this);
      // This test is about the isolate's thread (the real bootstrap's `many`): keep calls off the gateway thread,
      // which gateway-thread.test.ts covers.
      (this as unknown as { activity: ThreadActivity }).activity.holdOff(60_000);
      return run.call(this, callArgs, timeoutMs, () => {
        alone++;
        return one();
      });
    };
    t.teardown(() => {
      IsolateBatch.prototype.run = run;
    });
    const together = await Promise.all(inputs.map((input) => sb.run(req('bad-outcome', input))));
    t.equal(applies(), 1, 'four calls of one turn: one call into the isolate');
    const oneByOne: unknown[] = [];
    for (const input of inputs) oneByOne.push(await sb.run(req('bad-outcome', input)));
    t.equal(applies(), 5, 'one call a turn: one each');
    const outcomes = (rs: unknown[]): unknown[] => rs.map((r) => (r as { outcome: unknown }).outcome);
    t.same(outcomes(together), outcomes(oneByOne));
    t.same(outcomes(together)[0], { ok: true, data: { normal: true } });
    // A value that is not plain data (a function here) leaves the batch: that call alone is asked again, the other
    // keeps the batch's answer.
    const mixed = await Promise.all(
      [{ mode: 'normal' }, { kind: 'not-cloneable' }].map((input) => sb.run(req('bad-outcome', input))),
    );
    t.equal(applies(), 7, 'the batch, then the call that is not plain data alone');
    t.same(outcomes(mixed)[0], { ok: true, data: { normal: true } });
    t.match(mixed[1], { outcome: { ok: false, code: 'INTERNAL' } });
  },
);

t.test('a call that never settles does not hold the others of its batch', async (t) => {
  const sb = await createSandbox({
    pluginDirs: [FIXTURES],
    logger: createMemoryLogger('debug'),
    poolSize: 1,
    maxPerIsolate: 8,
    resolver: fakeResolver(),
  });
  t.teardown(() => sb.close());
  const started = Date.now();
  const never = sb.run(req('bad-outcome', { kind: 'never' }, { timeoutMs: 1500 }));
  const normal = await sb.run(req('bad-outcome', { mode: 'normal' }, { timeoutMs: 1500 }));
  t.same(normal.outcome, { ok: true, data: { normal: true } });
  t.ok(Date.now() - started < 1000, 'answered long before the deadline of the other call');
  t.match((await never).outcome, { ok: false, code: 'INTERNAL' });
});
