// plugin.json must allow exactly what the modules fetch: a module whose fetchHosts are missing from
// allow_hosts fails at run time with "fetch refused", and an extra entry widens the blast radius for nothing.

import { readFileSync } from 'node:fs';
import t from 'tap';
import type { PluginManifest } from '../../../core/sandbox/contract.js';
import { platforms } from '../../../plugins/jiexi/platforms/index.js';

const manifest = JSON.parse(readFileSync('plugins/jiexi/plugin.json', 'utf8')) as PluginManifest;

t.test('manifest basics', async (t) => {
  t.equal(manifest.name, 'jiexi');
  t.equal(manifest.timeout_ms, 10000);
  t.equal(manifest.memory_mb, 64);
});

t.test('allow_hosts contains every module’s fetchHosts', async (t) => {
  t.ok(platforms.length >= 3, 'registry is populated');
  for (const m of platforms) {
    for (const h of m.fetchHosts) t.ok(manifest.allow_hosts.includes(h), `${m.id}: ${h} in allow_hosts`);
  }
});

t.test('allow_hosts has no host that no module fetches', async (t) => {
  const used = new Set(platforms.flatMap((m) => m.fetchHosts));
  for (const h of manifest.allow_hosts) t.ok(used.has(h), `${h} is fetched by some module`);
});

t.test('allow_hosts equals the union of every module’s fetchHosts, exactly', async (t) => {
  const union = [...new Set(platforms.flatMap((m) => m.fetchHosts))].sort();
  t.strictSame([...manifest.allow_hosts].sort(), union);
  t.equal(new Set(manifest.allow_hosts).size, manifest.allow_hosts.length, 'no duplicates');
  t.ok(manifest.allow_hosts.includes('www.rednote.com'), 'RedNote pages are reachable');
});

t.test('no link host is claimed by two modules (first match would silently win)', async (t) => {
  const owner = new Map<string, string>();
  for (const m of platforms) {
    for (const h of m.linkHosts) {
      t.notOk(owner.has(h), `${h} claimed by ${owner.get(h) ?? ''} and ${m.id}`);
      owner.set(h, m.id);
    }
  }
});
