// The shipped operations.yaml loads against the shipped plugins: every code binds to a plugin folder.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import t from 'tap';
import { loadOperationsConfig } from '../../core/config/operations-loader.js';
import { buildRegistry } from '../../core/registry/registry.js';

t.test('operations.yaml is valid and every plugin exists', async (t) => {
  const cfg = loadOperationsConfig(resolve('operations.yaml'), {});
  const registry = buildRegistry(cfg, (name) => existsSync(resolve('plugins', name, 'plugin.json')), 1);
  t.same(
    registry.list().map((o) => o.code),
    ['phone', 'jiexi', 'kuaid', 'kuaid_detect', 'douyin'],
  );
  t.equal(registry.get('phone')!.priceMicro, 5000);
  t.equal(registry.matchAlias('GET', '/api/video/7301234567890123456')?.operation.code, 'douyin');
  t.same(registry.matchAlias('GET', '/api/video/7301234567890123456')?.params, { id: '7301234567890123456' });
  t.equal(registry.matchAlias('GET', '/api/parse')?.operation.code, 'douyin');
  t.same(
    cfg.plans.map((p) => p.id),
    ['starter', 'pro'],
  );
  t.equal(cfg.packages.find((p) => p.id === 't100')!.tokensMicro, 105_000_000);
});
