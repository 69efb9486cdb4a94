// Input parameter hints in the console's language: the catalogue sends each property's English description and
// its Chinese beside it (x-description-zh); the docs page and the debugger's form show the UI language's text.

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import t from 'tap';
import { loadOperationsConfig } from '../../core/config/operations-loader.js';
import { presentOperation } from '../../core/console/api/catalogue.js';
import { buildRegistry } from '../../core/registry/registry.js';
import { paramText } from '../../web/src/param-text.js';

type Input = { properties: Record<string, { description?: string; 'x-description-zh'?: string }> };

const cfg = loadOperationsConfig(resolve('operations.yaml'), {});
const registry = buildRegistry(cfg, (name) => existsSync(resolve('plugins', name, 'plugin.json')), 1);

t.test('the catalogue carries both texts and the console picks the UI language', async (t) => {
  const phone = presentOperation(registry.get('phone')!) as unknown as { input: Input };
  const field = phone.input.properties.phone;
  t.equal(
    paramText(field, 'zh'),
    '中国大陆手机号，11 位（物联网号 13 位）；可含空格和短横线，开头的 +86、0086 或 86 也可以',
  );
  t.equal(
    paramText(field, 'en'),
    'Mainland mobile number, 11 digits (13 for IoT numbers); spaces, dashes and a leading +86, 0086 or 86 are accepted',
  );
  const kuaid = presentOperation(registry.get('kuaid')!) as unknown as { input: Input };
  t.equal(paramText(kuaid.input.properties.phone, 'zh'), '寄件人或收件人的手机号，或其后 4 位；查顺丰和中通时必填');
});

t.test('one string serves both languages; no description is an empty hint', async (t) => {
  t.equal(paramText({ description: 'any text' }, 'zh'), 'any text');
  t.equal(paramText({ description: 'any text' }, 'en'), 'any text');
  t.equal(paramText({}, 'zh'), '');
  t.equal(paramText({ 'x-description-zh': '只有中文' }, 'en'), '', 'English UI never shows Chinese-only text');
});

t.test('the docs page and the debugger form take their hints from paramText, not description', async (t) => {
  for (const f of ['web/src/pages/docs.ts', 'web/src/schema-form.ts']) {
    const src = readFileSync(f, 'utf8');
    t.match(src, /paramText\(s, getLang\(\)\)/, f);
    t.notMatch(src, /s\.description/, `${f} reads no description directly`);
  }
});
