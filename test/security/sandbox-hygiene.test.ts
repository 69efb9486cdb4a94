// F22: a plugin call cannot leave state behind for the next call on the same isolate (frozen intrinsics and
// global object), cannot get innocent calls re-run by throwing isolated-vm's error texts, and cannot flood the
// log (per-call cap, per-key rate).

import { fileURLToPath } from 'node:url';
import nock from 'nock';
import t from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { LOG_LIMITS } from '../../core/sandbox/log-budget.js';
import { createSandbox, type Sandbox } from '../../core/sandbox/sandbox.js';
import { fakeResolver, replyAfter, req } from '../sandbox/helpers.js';

const DIR = fileURLToPath(new URL('../fixtures/sandbox-hygiene', import.meta.url));
nock.disableNetConnect();
t.teardown(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

const logger = createMemoryLogger();
let sb: Sandbox;
t.before(async () => {
  // One isolate: every call lands on the same context, as the next user's call would.
  sb = await createSandbox({ pluginDirs: [DIR], logger, poolSize: 1, resolver: fakeResolver() });
});
t.teardown(() => sb.close());

const linesOf = (requestId: string) => logger.lines.filter((l) => l.request_id === requestId);

t.test('pollution attempts fail and the next call on the isolate sees pristine built-ins', async (t) => {
  const polluter = await sb.run(req('hygiene', { mode: 'pollute' }));
  t.same(polluter.outcome, {
    ok: true,
    data: { proto: 'TypeError', merge: 'TypeError', push: 'TypeError', json: 'TypeError', global: 'TypeError' },
  });
  const next = await sb.run(req('hygiene', { mode: 'inspect' }));
  t.same(next.outcome, { ok: true, data: { pwned: null, push: 2, json: 1, leak: null } });
});

t.test('ordinary code that assigns name/toString on its own objects still works', async (t) => {
  const { outcome } = await sb.run(req('hygiene', { mode: 'override' }));
  t.same(outcome, { ok: true, data: { name: 'LookupError', text: 'custom', message: 'x' } });
});

for (const mode of ['fake-disposed', 'fake-oom']) {
  t.test(
    `${mode}: a plugin throwing isolated-vm's text fails alone; no isolate is killed and no call is re-run`,
    async (t) => {
      nock('https://wait.fixture.test').get('/slow').reply(replyAfter(300, 'ok'));
      const innocent = req('hygiene', { mode: 'wait' });
      const waiting = sb.run(innocent);
      await new Promise((r) => setTimeout(r, 50));
      const before = logger.lines.length;
      const liar = await sb.run(req('hygiene', { mode }));
      t.match(liar.outcome, { ok: false, code: 'INTERNAL', message: /hygiene/ });
      t.same((await waiting).outcome, { ok: true, data: { status: 200 } });
      const after = logger.lines.slice(before);
      t.notOk(
        after.some((l) => l.message === 'isolate disposed'),
        'the isolate was kept',
      );
      t.notOk(
        linesOf(innocent.requestId).some((l) => l.message === 're-running a call whose isolate was disposed'),
        'the innocent call ran once',
      );
    },
  );
}

t.test('host.log: at most 100 lines per call, the rest counted in one warning', async (t) => {
  const flood = req('hygiene', { mode: 'log-flood', lines: 5000 }, { logKey: 'key-a' });
  t.same((await sb.run(flood)).outcome, { ok: true, data: { logged: true } });
  const lines = linesOf(flood.requestId);
  t.equal(lines.filter((l) => String(l.message).startsWith('line ')).length, LOG_LIMITS.perCallLines);
  const dropped = lines.find((l) => l.message === 'plugin log lines dropped');
  t.match(dropped, {
    level: 'warn',
    plugin: 'hygiene',
    dropped: 5000 - LOG_LIMITS.perCallLines,
    written: LOG_LIMITS.perCallLines,
  });
});

t.test('host.log: a key that keeps logging is rate-limited; another key is not', async (t) => {
  // key-a spent 100 of its 200-line burst above; its next call gets the other ~100, the one after almost nothing.
  const second = req('hygiene', { mode: 'log-flood', lines: 100 }, { logKey: 'key-a' });
  await sb.run(second);
  const third = req('hygiene', { mode: 'log-flood', lines: 100 }, { logKey: 'key-a' });
  await sb.run(third);
  const written = (r: { requestId: string }) =>
    linesOf(r.requestId).filter((l) => String(l.message).startsWith('line ')).length;
  t.ok(written(second) >= 99 && written(second) <= 100, `second call: ${written(second)}`);
  t.ok(
    written(third) <= 10,
    `third call: ${written(third)} (bucket empty, refilling at ${LOG_LIMITS.perKeyPerSecond}/s)`,
  );
  const other = req('hygiene', { mode: 'log-flood', lines: 100 }, { logKey: 'key-b' });
  await sb.run(other);
  t.equal(written(other), 100, 'another key has its own budget');
});
