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

t.test('every input property of every shipped operation is described in Chinese and in English', async (t) => {
  const cfg = loadOperationsConfig(resolve('operations.yaml'), {});
  const han = /\p{Script=Han}/u;
  let count = 0;
  for (const op of cfg.operations) {
    const props = Object.entries(op.input.properties ?? {});
    t.ok(props.length > 0, `${op.code} takes parameters`);
    for (const [name, s] of props) {
      count++;
      const en = s.description;
      const zh = s['x-description-zh'];
      t.ok(typeof en === 'string' && en.length > 0, `${op.code}.${name}: English description`);
      t.ok(typeof zh === 'string' && han.test(zh), `${op.code}.${name}: Chinese description`);
      t.not(zh, en, `${op.code}.${name}: the two texts differ`);
    }
  }
  t.equal(count, 10, 'phone 1, jiexi 2, kuaid 3, kuaid_detect 2, douyin 2');
  t.same(cfg.operations.find((o) => o.code === 'phone')?.input.properties?.phone, {
    type: 'string',
    description:
      'Mainland mobile number, 11 digits (13 for IoT numbers); spaces, dashes and a leading +86, 0086 or 86 are accepted',
    'x-description-zh': '中国大陆手机号，11 位（物联网号 13 位）；可含空格和短横线，开头的 +86、0086 或 86 也可以',
    minLength: 1,
    maxLength: 24,
  });
});
