// The isolated-vm abort at exit (IsolateEnvironment::GetCurrent: environment != nullptr, SIGABRT) that failed one
// CI run in three after every subtest had passed: a GC during Node's teardown finalized isolated-vm objects after
// isolated-vm had freed its state. A native addon makes that GC happen on every run (it needs g++ and Node's
// headers, which Debian's nodejs package installs); without the exit guard the child aborts, with it it exits 0.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { childEnv } from '../scale/backend.js';

const headers = ['/usr/include/node', join(process.execPath, '../../include/node')].find((d) =>
  existsSync(join(d, 'node.h')),
);
const gpp = spawnSync('g++', ['--version']).status === 0;
const skip = !headers ? "Node's C++ headers not found" : !gpp ? 'g++ not found' : false;

t.test('a GC after isolated-vm cleanup at exit: aborts without the guard, exits 0 with it', { skip }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-exit-guard-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const addon = join(dir, 'gc-after-cleanup.node');
  const cc = spawnSync(
    'g++',
    [
      '-shared',
      '-fPIC',
      '-O1',
      '-std=c++20',
      `-I${headers}`,
      resolve('test/fixtures/exit-guard/gc-after-cleanup.cc'),
      '-o',
      addon,
    ],
    { encoding: 'utf8' },
  );
  t.equal(cc.status, 0, 'the addon compiles', { stderr: cc.stderr });
  const run = (mode: string) =>
    spawnSync(
      process.execPath,
      ['--no-node-snapshot', '--import', './core/bin/load-ts.mjs', 'test/fixtures/exit-guard/child.ts', mode],
      {
        env: childEnv({ GC_ADDON: addon }),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );

  const guarded = run('guarded');
  t.equal(
    guarded.stdout.trim(),
    'statuses 200,200,200; held after close: 0',
    'calls answered; closing let go of every isolated-vm object',
    { stderr: guarded.stderr },
  );
  t.match(guarded.stderr, 'gc-after-cleanup: survived');
  t.equal(guarded.signal, null);
  t.equal(guarded.status, 0);

  const unguarded = run('unguarded');
  t.equal(unguarded.stdout.trim(), 'statuses 200,200,200; held after close: 0');
  t.match(unguarded.stderr, 'gc-after-cleanup: collecting');
  t.match(unguarded.stderr, 'environment != nullptr');
  t.equal(unguarded.signal, 'SIGABRT');
});
