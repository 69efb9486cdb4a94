// The price list customers see: kuaid costs 0.005 TOKEN per call everywhere it is stated.
// operations.yaml is the one source; the console catalogue and the OpenAPI document read it; README says it.

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import t from 'tap';
import { loadOperationsConfig } from '../../../core/config/operations-loader.js';
import { presentOperation } from '../../../core/console/api/catalogue.js';
import { buildOpenApi } from '../../../core/console/openapi.js';
import { buildRegistry } from '../../../core/registry/registry.js';

const registry = buildRegistry(
  loadOperationsConfig(resolve('operations.yaml'), {}),
  (name) => existsSync(resolve('plugins', name, 'plugin.json')),
  1,
);

t.test('operations.yaml prices kuaid at 0.005 and kuaid_detect at 0.001', async (t) => {
  t.equal(registry.get('kuaid')!.priceMicro, 5000);
  t.equal(registry.get('kuaid_detect')!.priceMicro, 1000);
});

t.test('the console catalogue and OpenAPI say the same', async (t) => {
  t.equal(presentOperation(registry.get('kuaid')!).price, 0.005);
  const doc = buildOpenApi(registry, 'test') as {
    paths: Record<string, Record<string, { 'x-price-token'?: number; description?: string }>>;
  };
  const get = doc.paths['/api/kuaid'].get;
  t.equal(get['x-price-token'], 0.005);
  t.match(get.description, /Price: 0\.005 TOKEN per successful call/);
});

t.test('README states 0.005 for kuaid', async (t) => {
  const readme = readFileSync(resolve('README.md'), 'utf8');
  const row = readme.split('\n').find((l) => l.includes('/api/kuaid?'));
  t.match(row, /\b0\.005 TOKEN\b/, 'the /api/kuaid row of the endpoint table');
  t.notMatch(readme, /kuaid[^\n]*\b0\.01 TOKEN/, 'no stale 0.01 price for kuaid');
});
