// Backend parity: `npm test` runs every suite on SQLite + memory; this file re-runs the core in-process suites
// (those that use createTestApp) on PostgreSQL + Redis, by spawning tap with TOLLGATE_TEST_BACKEND=pg-redis,
// and passes only when that child run passed. Skipped, with the reason, when either server is unreachable.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import t from 'tap';
import { childEnv, unreachable } from './backend.js';

/** Suites that exercise the pipeline, billing, config and console through createTestApp. Plugin and sandbox suites do not touch the store. */
const SUITES = ['test/pipeline', 'test/billing', 'test/config', 'test/console', 'test/accounts', 'test/http'].filter(
  (d) => existsSync(resolve(d)),
);

const why =
  process.env.TOLLGATE_TEST_BACKEND === 'pg-redis'
    ? 'this run already uses TOLLGATE_TEST_BACKEND=pg-redis'
    : await unreachable();
if (why || SUITES.length === 0) {
  const reason = why ?? 'no core suites found';
  console.log(`# scale-out parity (pg-redis): skipped, ${reason}`);
  t.plan(0, `scale-out parity (pg-redis): skipped, ${reason}`);
} else {
  // The child runs six folders of suites one file at a time (~10 minutes on a busy 2-core machine, more as suites
  // are added); a hung file is still caught by the child's own per-file timeout, so this only bounds the whole.
  t.setTimeout(1_500_000);
  t.test(`core suites on PostgreSQL + Redis: ${SUITES.join(' ')}`, async (t) => {
    // tap marks its children through TAP*, _TAPJS_* and NODE_OPTIONS; a nested run must start clean.
    const env = childEnv({ TOLLGATE_TEST_BACKEND: 'pg-redis' });
    const started = Date.now();
    // One job: the outer run already uses the other core (package.json tap.jobs = 2).
    const child = spawn(
      process.execPath,
      [resolve('node_modules/tap/dist/esm/run.mjs'), '--jobs=1', ...SUITES.map((d) => `${d}/**/*.test.ts`)],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    const summary = /# \{ total: (\d+), pass: (\d+)(?:, [^}]*)?\s*\}/.exec(out);
    const fail = /fail: (\d+)/.exec(summary?.[0] ?? '');
    t.comment(`child run: ${summary?.[0] ?? 'no summary'} in ${Date.now() - started} ms`);
    const tail = out
      .split('\n')
      .filter((l) => /^\s*not ok|^# \{/.test(l))
      .slice(-40)
      .join('\n');
    t.ok(summary && Number(summary[1]) > 0, `the child run reported a summary\n${summary ? '' : out.slice(-3000)}`);
    t.equal(fail ? Number(fail[1]) : 0, 0, `no test failed on pg-redis\n${fail ? tail : ''}`);
    t.equal(code, 0, 'the child tap run exited 0');
  });
}
