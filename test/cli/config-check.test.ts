// `tollgate config check [file]`: the shipped config passes; a broken one is named field by field
// (operations[2].price_per_call, with its line) and variable by variable, exit 1. Nothing is started.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { configCheck, envProblems, pointerToPath } from '../../core/cli/config-check.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-config-check-'));
const shipped = readFileSync('operations.yaml', 'utf8');

async function check(text: string | null, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const words = ['config', 'check'];
  if (text !== null) {
    const file = join(dir, `ops-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, text);
    words.push(file);
  }
  const code = await configCheck(
    { words, flags: {} },
    (l) => lines.push(l.replace(/ops-[a-z0-9]+\.yaml/g, 'ops.yaml')),
    env,
  );
  return { code, lines };
}

/** The line of the n-th occurrence of `needle` in the shipped file (1-based), so the test survives edits to it. */
function lineOf(needle: string, nth: number): number {
  const lines = shipped.split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) if (lines[i].includes(needle) && ++seen === nth) return i + 1;
  throw new Error(`no ${needle} #${nth}`);
}

t.test('JSON pointers become field paths', async (t) => {
  t.equal(pointerToPath('/operations/2/price_per_call'), 'operations[2].price_per_call');
  t.equal(pointerToPath('/plans/0/quota/calls_per_day'), 'plans[0].quota.calls_per_day');
  t.equal(pointerToPath('/operations/1/routes/0'), 'operations[1].routes[0]');
  t.equal(pointerToPath(''), '');
});

t.test('the shipped operations.yaml and an empty environment pass', async (t) => {
  const { code, lines } = await check(null, { OPERATIONS_FILE: 'operations.yaml' });
  t.equal(code, 0, lines.join('\n'));
  t.match(lines[0], /operations\.yaml: \d+ operations \(\d+ enabled\), \d+ plans, \d+ packages$/);
  t.equal(lines.at(-1), 'config ok');
  t.ok(
    lines.includes(
      'note: manual_payment.instructions still carries its unfinished mark: buyers are told only to pay as agreed, quoting the order number, until you write whom to pay and where',
    ),
    'the shipped payment template is pointed out',
  );
});

t.test('manual payment instructions of your own: no note', async (t) => {
  const own = shipped.replace(
    / {2}instructions:\n {4}zh: .*\n {4}en: .*\n/,
    '  instructions: "Alipay pay@example.com, order {order}"\n',
  );
  t.not(own, shipped);
  const { code, lines } = await check(own);
  t.equal(code, 0, lines.join('\n'));
  t.notOk(lines.some((l) => l.includes('manual_payment')));
});

t.test('every bad environment variable is named', async (t) => {
  const env = {
    PORT: 'eighty',
    LOG_LEVEL: 'loud',
    TRUST_PROXY: 'true',
    DATABASE_URL: 'mysql://db/x',
    REDIS_URL: 'http://cache',
  };
  const { settings, problems } = envProblems(env);
  t.equal(settings, null);
  t.same(problems, [
    'LOG_LEVEL must be one of debug, info, warn, error, got "loud"',
    'PORT must be an integer >= 0, got "eighty"',
    'TRUST_PROXY=true would trust a client-written X-Forwarded-For; give the number of proxies in front (e.g. 1) or their CIDR blocks',
    'DATABASE_URL must start with postgres:// or postgresql:// (or be unset for SQLite)',
    'REDIS_URL must start with redis:// or rediss://',
  ]);
  const { code, lines } = await check(shipped, env);
  t.equal(code, 1);
  t.same(lines.filter((l) => l.startsWith('env: ')).length, 5);
  t.equal(lines.at(-1), 'config has 5 problem(s)');
  t.same(envProblems({ PORT: '8080' }).problems, [], 'good values pass');
});

t.test('a bad field is named by path, operation and line', async (t) => {
  const third = shipped.split('\n');
  const at = lineOf('price_per_call:', 3) - 1;
  third[at] = third[at].replace(/price_per_call: .*/, 'price_per_call: -1');
  const { code, lines } = await check(third.join('\n'));
  t.equal(code, 1);
  const code3 = (parse(shipped) as { operations: Array<{ code: string }> }).operations[2].code;
  t.same(lines, [
    `ops.yaml: operation "${code3}" at operations[2].price_per_call (line ${at + 1}): must be >= 0`,
    'config has 1 problem(s)',
  ]);
});

t.test('a misspelt key, a missing one, a sixth decimal, an unknown plugin', async (t) => {
  const typo = await check(
    'operations:\n  - code: a\n    plugin: phone\n    price_per_cal: 1\n    input: { type: object }\n',
  );
  t.equal(typo.code, 1);
  t.same(typo.lines, [
    'ops.yaml: operation "a" at operations[0] (line 2): must have required property \'price_per_call\'',
    'ops.yaml: operation "a" at operations[0] (line 2): must NOT have additional properties (price_per_cal)',
    'config has 2 problem(s)',
  ]);
  const decimals = await check(
    'operations:\n  - code: a\n    plugin: phone\n    price_per_call: 0.0000001\n    input: { type: object }\n',
  );
  t.same(decimals.lines, [
    'ops.yaml: operation "a" at operations[0].price_per_call (line 4): amount 1e-7 has more than 6 decimals',
    'config has 1 problem(s)',
  ]);
  const plugin = await check(
    'operations:\n  - code: a\n    plugin: nosuch\n    price_per_call: 1\n    input: { type: object }\n',
  );
  t.same(plugin.lines, [
    'ops.yaml: operation "a" at operations[0].plugin (line 3): no plugin folder "nosuch"',
    'config has 1 problem(s)',
  ]);
  const plan = await check(
    'operations:\n  - code: a\n    plugin: phone\n    price_per_call: 1\n    input: { type: object }\nplans:\n  - { id: p, name: P, price: 1, duration_days: 30, quota: { calls_per_day: 5 }, codes: [b] }\n',
  );
  t.same(plan.lines, [
    'ops.yaml: plan "p" at plans[0].codes[0] (line 7): unknown operation code "b"',
    'config has 1 problem(s)',
  ]);
});

t.test('unreadable and unparsable files', async (t) => {
  const missing = await check(null, { OPERATIONS_FILE: join(dir, 'nope.yaml') });
  t.same(missing.lines, [`${join(dir, 'nope.yaml')}: cannot read (ENOENT)`, 'config has 1 problem(s)']);
  const yaml = await check('operations:\n  - code: x\n   bad: [\n');
  t.equal(yaml.code, 1);
  t.match(yaml.lines[0], /^ops\.yaml: not valid YAML: .*line 3, column 1/);
  t.equal(yaml.lines.at(-1), 'config has 1 problem(s)');
});
