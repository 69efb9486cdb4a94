// npm 11 skips, and warns about, dependency install scripts that package.json#allowScripts does not approve.
// Every dependency with one (per the lock file) must be approved, no approval may be stale, and npm itself must
// report nothing unreviewed; the native builds those scripts do are present. Older npm ignores the field.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { version?: string; hasInstallScript?: boolean; resolved?: string }>;
};

/** name@version of every dependency whose install scripts npm would run (the root's own scripts always run). */
const withScripts = Object.entries(lock.packages)
  .filter(([path, p]) => path !== '' && p.hasInstallScript)
  .map(([path, p]) => ({ name: path.replace(/^.*node_modules\//, ''), version: p.version!, resolved: p.resolved }));

function covers(key: string, dep: { name: string; version: string }): boolean {
  const at = key.lastIndexOf('@');
  const name = at > 0 ? key.slice(0, at) : key;
  const version = at > 0 ? key.slice(at + 1) : null;
  return (
    name === dep.name &&
    (version === null ||
      version
        .split('||')
        .map((v) => v.trim())
        .includes(dep.version))
  );
}

t.test('allowScripts approves exactly the dependencies with install scripts', async (t) => {
  const allow = pkg.allowScripts ?? {};
  t.same(
    withScripts.map((d) => d.name).sort(),
    ['better-sqlite3', 'esbuild', 'isolated-vm'],
    'the lock file still has these three',
  );
  for (const dep of withScripts) {
    const keys = Object.keys(allow).filter((k) => covers(k, dep));
    t.equal(keys.length, 1, `${dep.name}@${dep.version} approved once`);
    t.equal(allow[keys[0]], true, `${dep.name} allowed, not denied`);
    // npm trusts a pinned version only from the lock file's resolved URL; this lock file has none
    // (omit-lockfile-registry-resolved), so a pinned entry would silently not match.
    if (!dep.resolved) t.notMatch(keys[0], /.@/, `${dep.name}: name-only entry while the lock has no resolved URLs`);
  }
  const stale = Object.keys(allow).filter((k) => !withScripts.some((d) => covers(k, d)));
  t.same(stale, [], 'no approval for a package without install scripts (npm install-scripts prune would drop it)');
});

t.test('the native builds those scripts make are installed', async (t) => {
  t.ok(existsSync('node_modules/better-sqlite3/build/Release/better_sqlite3.node'), 'better-sqlite3 built');
  t.ok(existsSync('node_modules/isolated-vm/out/isolated_vm.node'), 'isolated-vm built');
  t.ok(existsSync('node_modules/esbuild/bin/esbuild'), 'esbuild binary in place');
});

const npmVersion = spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim();
const ls = spawnSync('npm', ['install-scripts', 'ls'], { encoding: 'utf8' });
const supported = ls.status === 0 && !/Unknown command/i.test(ls.stdout + ls.stderr);

t.test(
  `npm ${npmVersion}: nothing unreviewed`,
  { skip: supported ? false : `npm ${npmVersion} has no install-scripts command (it runs every script)` },
  async (t) => {
    t.match(ls.stdout, /^No packages with unreviewed install scripts\.$/m);
    t.notMatch(ls.stderr, /install-scripts/);
  },
);
