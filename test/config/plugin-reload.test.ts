// A plugin's code reloads live like operations.yaml: saving its handler rebuilds that plugin's bundle and swaps
// it in for the next call, with no restart and no touch of operations.yaml. A handler that no longer builds keeps
// the previous build serving and says why in the log.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createTestApp } from '../helpers/create-test-app.js';

const handler = (v: number): string =>
  `export const plugin = { async run() { return { ok: true, data: { v: ${v} } }; } };\n`;

t.test('editing a plugin handler reloads it live; a broken edit keeps the old one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-plugins-'));
  mkdirSync(join(dir, 'hello'));
  writeFileSync(
    join(dir, 'hello', 'plugin.json'),
    JSON.stringify({ name: 'hello', version: '1.0.0', allow_hosts: [], timeout_ms: 2000, memory_mb: 32 }),
  );
  writeFileSync(join(dir, 'hello', 'handler.ts'), handler(1));
  const yaml = join(dir, 'operations.yaml');
  writeFileSync(
    yaml,
    'operations:\n  - code: hello\n    plugin: hello\n    price_per_call: 0.001\n    input: { type: object }\n',
  );
  const h = await createTestApp({ operationsFile: yaml, pluginDirs: [dir], watch: true });
  t.teardown(() => h.close());
  const u = await h.user('1');
  const call = async () => (await h.client.get('/api/hello', { 'X-API-Key': u.key })).body;
  t.match(await call(), { success: true, data: { v: 1 }, deducted: 0.001 });

  writeFileSync(join(dir, 'hello', 'handler.ts'), handler(2));
  const until = async (ok: () => Promise<boolean>) => {
    const end = Date.now() + 30_000;
    while (!(await ok()) && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
  };
  await until(async () => (await call()).data?.v === 2);
  t.match(await call(), { success: true, data: { v: 2 }, deducted: 0.001 }, 'the new code answers');
  t.ok(h.logs.some((l) => l.message === 'plugin rebuilt'));

  writeFileSync(join(dir, 'hello', 'handler.ts'), 'export const plugin = { run( {\n');
  const failed = () => h.logs.find((l) => l.message === 'plugin reload failed; keeping the previous build');
  await until(async () => failed() !== undefined);
  t.match(failed(), { level: 'error', reason: /^plugin hello: bundling handler\.ts failed/ });
  t.match(await call(), { success: true, data: { v: 2 } }, 'a broken edit keeps the previous code');
  const charges = (await h.ledger(u.userId)).filter((r) => r.kind === 'charge').length;
  t.equal(charges, (await h.callLog(u.userId)).filter((r) => Number(r.charged) > 0).length);
  await h.assertReconciled();
});
