// The console's dictionaries: zh and en have the same keys and no empty value, every t('key') in the sources
// exists, every error code of the catalogue has a translation, and the page sources carry no user-visible
// literal text of their own (heuristic: Chinese characters or an English phrase in a string literal).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { ERROR_CATALOGUE, ERROR_CODES, ERROR_TEXT } from '../../core/http/errors.js';
import { DICTS } from '../../web/src/i18n/dicts.js';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';

const SRC = 'web/src';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Source without comments, so prose in comments is not mistaken for UI text. */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((l) => (l.trim().startsWith('//') ? '' : l.replace(/\s\/\/\s.*$/, '')))
    .join('\n');
}

/** String literals and the literal parts of template strings. */
function literals(src: string): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(/'((?:\\.|[^'\\\n])*)'|"((?:\\.|[^"\\\n])*)"|`((?:\\.|[^`\\])*)`/g)) {
    const text = m[1] ?? m[2] ?? (m[3] ?? '').replace(/\$\{[^}]*\}/g, ' ');
    out.push(text);
  }
  return out;
}

const files = tsFiles(SRC);
const uiFiles = files.filter((f) => !f.includes(`${SRC}/i18n/`) && !f.endsWith('codegen.ts'));

t.test('zh and en have the same keys, none empty', async (t) => {
  t.same(Object.keys(en).sort(), Object.keys(zh).sort());
  for (const [k, v] of [...Object.entries(zh), ...Object.entries(en)])
    if (v.trim() === '') t.fail(`empty text for ${k}`);
  t.ok(Object.keys(zh).length > 200);
});

t.test('placeholders match between languages', async (t) => {
  const vars = (s: string): string[] => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const k of Object.keys(zh) as Array<keyof typeof zh>) t.same(vars(en[k]), vars(zh[k]), `placeholders of ${k}`);
});

t.test('every t() key used in the sources exists', async (t) => {
  const missing: string[] = [];
  for (const f of files) {
    for (const m of code(f).matchAll(/\bt\('([^']+)'/g))
      if (!(m[1] in DICTS.zh)) missing.push(`${relative(SRC, f)}: ${m[1]}`);
  }
  t.same(missing, []);
});

t.test('the error catalogue: every code has a zh and an en message and hint, each its own text', async (t) => {
  t.same(Object.keys(ERROR_TEXT).sort(), [...ERROR_CODES].sort());
  for (const code of ERROR_CODES) {
    const { zh: z, en: e, status } = ERROR_TEXT[code];
    t.equal(status, ERROR_CATALOGUE[code].status, `${code} status`);
    t.equal(e.message, ERROR_CATALOGUE[code].message, `${code}: the API's default text is the en message`);
    for (const [l, text] of [
      ['zh', z],
      ['en', e],
    ] as const) {
      t.ok(text.message.trim().length >= 4 && text.hint.trim().length >= 4, `${code} ${l}: message and hint`);
      t.not(text.message, text.hint, `${code} ${l}: the hint says what to do, not the message again`);
    }
    t.match(z.message + z.hint, /[\u3400-\u9fff]/, `${code}: zh is Chinese`);
    t.notMatch(e.message + e.hint, /[\u3400-\u9fff]/, `${code}: en has no Chinese`);
    t.notMatch(
      z.message + z.hint + e.message + e.hint,
      /KUAIDI|KDNIAO|DATABASE_URL|REDIS_URL|SMTP_/,
      `${code}: no operator setting names`,
    );
  }
  t.same(Object.keys(DICTS.en).sort(), Object.keys(DICTS.zh).sort(), 'the merged dictionaries have the same keys');
});

t.test('the console sends its language, so server messages match the UI', async (t) => {
  t.match(readFileSync(join(SRC, 'api.ts'), 'utf8'), /'Accept-Language': getLang\(\)/);
  t.match(readFileSync(join(SRC, 'pages/debugger.ts'), 'utf8'), /'Accept-Language': getLang\(\)/);
});

t.test('every error code and ledger kind has a translation', async (t) => {
  for (const code of ERROR_CODES)
    for (const l of ['zh', 'en'] as const)
      t.ok(`err.${code}` in DICTS[l] && `hint.${code}` in DICTS[l], `${l}: err.${code}, hint.${code}`);
  for (const kind of ['charge', 'topup', 'grant', 'refund', 'adjustment', 'plan_grant', 'package', 'redeem'])
    t.ok(`ledger.${kind}` in zh, `ledger.${kind}`);
});

t.test('no user-visible literal text outside the dictionaries', async (t) => {
  const found: string[] = [];
  for (const f of uiFiles) {
    for (const s of literals(code(f))) {
      const chinese = /[\u3400-\u9fff]/.test(s);
      // "Two words, the first capitalised" is how prose looks; CSS classes, headers and codes do not.
      const english = /(^|[\s(])[A-Z][a-z]+ [A-Za-z]{2,}/.test(s) && !/^[\w-]+: /.test(s);
      if (chinese || english) found.push(`${relative(SRC, f)}: ${s}`);
    }
  }
  t.same(found, []);
});

t.test('no HTML injection or eval paths in the console sources', async (t) => {
  for (const f of files) {
    const src = code(f);
    t.notMatch(src, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/, relative(SRC, f));
    t.notMatch(src, /setAttribute\('style'|attrs: \{[^}]*\bstyle:/, `${relative(SRC, f)} sets no inline style (CSP)`);
  }
});

t.test('the docs list every /api error code with its catalogue status', async (t) => {
  const CONSOLE_ONLY = new Set([
    'UNAUTHORIZED',
    'INVALID_CREDENTIALS',
    'WRONG_PASSWORD',
    'WRONG_2FA_CODE',
    'FORBIDDEN',
    'ACCOUNT_DISABLED',
    'RESOURCE_NOT_FOUND',
    'CONFLICT',
    'TOO_MANY_ATTEMPTS',
    'TOO_MANY_REQUESTS',
    'INVALID_TOKEN',
    'EMAIL_NOT_VERIFIED',
    'REGISTRATION_CLOSED',
    'EMAIL_DOMAIN_NOT_ALLOWED',
    'TWO_FACTOR_REQUIRED',
    'MAIL_FAILED',
  ]);
  const listed = [...readFileSync(join(SRC, 'pages/docs.ts'), 'utf8').matchAll(/\['([A-Z_]+)', (\d{3})\]/g)].map(
    (m) => [m[1], Number(m[2])],
  );
  const expected = ERROR_CODES.filter((c) => !CONSOLE_ONLY.has(c)).map((c) => [c, ERROR_CATALOGUE[c].status]);
  t.same([...listed].sort(), [...expected].sort());
});
