// An operation's options reach each isolate once and are then named by number (core/sandbox/kept-options.ts):
// every call still sees exactly its own operation's options, frozen, also after the isolate has let more than
// KEPT_OPTIONS_MAX of them go (configuration reloads) and after an isolate was replaced.
import t from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { KEPT_OPTIONS_MAX } from '../../core/sandbox/kept-options.js';
import { createSandbox, type Sandbox } from '../../core/sandbox/sandbox.js';
import { FIXTURES, fakeResolver, req } from './helpers.js';

let sb: Sandbox;
t.before(async () => {
  sb = await createSandbox({
    pluginDirs: [FIXTURES],
    logger: createMemoryLogger(),
    poolSize: 1,
    resolver: fakeResolver(),
  });
});
t.teardown(() => sb.close());

const optionsSeen = async (options: Record<string, unknown>, input: Record<string, unknown> = {}) => {
  const { outcome } = await sb.run(req('echo', input, { options }));
  if (!outcome.ok) throw new Error(`echo failed: ${outcome.code} ${outcome.message}`);
  return outcome.data as { options: unknown; optionsWrite?: string };
};

t.test('one options object, many calls: the same options each time, still frozen', async (t) => {
  const options = { a: 1, nested: { b: ['x'] } };
  for (let i = 0; i < 5; i++) {
    const data = await optionsSeen(options, { tryOptionsWrite: true });
    t.same(data.options, { a: 1, nested: { b: ['x'] } });
    t.equal(data.optionsWrite, 'refused');
  }
});

t.test('calls of several operations at once each see their own options', async (t) => {
  const all = Array.from({ length: 20 }, (_, i) => ({ n: i }));
  const seen = await Promise.all([...all, ...all].map((o) => optionsSeen(o)));
  t.same(
    seen.map((d) => d.options),
    [...all, ...all],
  );
});

t.test('options the isolate let go are sent again', async (t) => {
  const first = { first: true };
  t.same((await optionsSeen(first)).options, { first: true });
  // Calls that fail reach the isolate with their options but never count as held: the isolate fills up and lets
  // every one go, `first` too, while the host still counts `first` as held.
  for (let i = 0; i < KEPT_OPTIONS_MAX; i++) {
    const { outcome } = await sb.run(req('echo', { fetch: 'https://elsewhere.test/' }, { options: { reload: i } }));
    t.equal(outcome.ok, false);
  }
  t.same((await optionsSeen(first)).options, { first: true }, 'the first options, sent again');
  t.same((await optionsSeen({ reload: 3 })).options, { reload: 3 });
});
