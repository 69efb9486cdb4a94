// The code-example generator: exact output per language, and quoting that survives quotes, backslashes,
// newlines, Chinese and emoji. Where a language's own tool is installed (python3, javac, node) the examples
// are also parsed by it.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  CODE_LANGS,
  codeExample,
  codeExamples,
  type ExampleRequest,
  goBody,
  goString,
  javaString,
  jsString,
  phpString,
  pyLiteral,
  pyString,
  shQuote,
} from '../../web/src/codegen.js';

const simple: ExampleRequest = {
  url: 'https://api.example.com/api/phone',
  apiKey: 'sk_abc',
  body: { phone: '13800138000' },
};
const nasty = `it's "quoted" \\ back\\slash\nnew line\ttab 中文 😀 \`tick\` $HOME`;
const tricky: ExampleRequest = {
  url: 'https://api.example.com/api/jiexi',
  apiKey: "sk_a'b",
  body: { url: nasty, n: 3, ok: true, none: null, list: [1, 'x'] },
};

function has(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

t.test('curl: exact text, and the shell reads every argument back unchanged', async (t) => {
  t.equal(
    codeExample('curl', simple),
    [
      `curl -sS -X POST 'https://api.example.com/api/phone' \\`,
      `  -H 'X-API-Key: sk_abc' \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d '{"phone":"13800138000"}'`,
    ].join('\n'),
  );
  t.equal(shQuote(`a'b`), `'a'\\''b'`);
  // Replace curl by printf to see the arguments the shell produced.
  const script = codeExample('curl', tricky).replace(/^curl /, `printf '%s\\0' `);
  const args = execFileSync('sh', ['-c', script]).toString('utf8').split('\0').slice(0, -1);
  t.same(args, [
    '-sS',
    '-X',
    'POST',
    tricky.url,
    '-H',
    `X-API-Key: ${tricky.apiKey}`,
    '-H',
    'Content-Type: application/json',
    '-d',
    JSON.stringify(tricky.body),
  ]);
});

t.test('javascript: exact text, and it evaluates to the same request', async (t) => {
  t.equal(
    codeExample('javascript', simple),
    [
      'const response = await fetch("https://api.example.com/api/phone", {',
      '  method: "POST",',
      '  headers: {',
      '    "X-API-Key": "sk_abc",',
      '    "Content-Type": "application/json",',
      '  },',
      '  body: JSON.stringify({',
      '    "phone": "13800138000"',
      '  }),',
      '});',
      'const result = await response.json();',
      'console.log(response.status, result);',
    ].join('\n'),
  );
  t.equal(jsString(nasty), JSON.stringify(nasty));
  const seen: Array<{ url: string; init: { headers: Record<string, string>; body: string } }> = [];
  const fakeFetch = async (url: string, init: { headers: Record<string, string>; body: string }) => {
    seen.push({ url, init });
    return { status: 200, json: async () => ({}) };
  };
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
    ...args: string[]
  ) => (...a: unknown[]) => Promise<void>;
  await new AsyncFunction('fetch', 'console', codeExample('javascript', tricky))(fakeFetch, { log: () => undefined });
  t.equal(seen[0].url, tricky.url);
  t.equal(seen[0].init.headers['X-API-Key'], tricky.apiKey);
  t.same(JSON.parse(seen[0].init.body), tricky.body);
});

t.test('python: exact text, literals and escaping', async (t) => {
  t.equal(
    codeExample('python', simple),
    [
      'import requests',
      '',
      'response = requests.post(',
      '    "https://api.example.com/api/phone",',
      '    headers={"X-API-Key": "sk_abc"},',
      '    json={"phone": "13800138000"},',
      '    timeout=30,',
      ')',
      'print(response.status_code, response.json())',
    ].join('\n'),
  );
  t.equal(
    pyLiteral({ a: true, b: false, c: null, d: [1, 2.5], e: 'x' }),
    '{"a": True, "b": False, "c": None, "d": [1, 2.5], "e": "x"}',
  );
  t.equal(pyString('a"b\\c\nd\u0001中'), '"a\\"b\\\\c\\nd\\x01中"');
  if (!has('python3')) return void t.comment('python3 not installed: literal round trip not checked');
  const out = execFileSync(
    'python3',
    ['-c', `import ast, json, sys\nprint(json.dumps(ast.literal_eval(sys.stdin.read())))`],
    { input: pyLiteral(tricky.body) },
  ).toString('utf8');
  t.same(JSON.parse(out), tricky.body, 'python reads the body literal back as the same JSON');
  const src = codeExample('python', tricky);
  execFileSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: src });
  t.pass('the python example parses');
});

t.test('php: exact text and single-quote escaping', async (t) => {
  t.equal(
    codeExample('php', simple),
    [
      '<?php',
      "$ch = curl_init('https://api.example.com/api/phone');",
      'curl_setopt_array($ch, [',
      '    CURLOPT_POST => true,',
      "    CURLOPT_HTTPHEADER => ['X-API-Key: sk_abc', 'Content-Type: application/json'],",
      `    CURLOPT_POSTFIELDS => '{"phone":"13800138000"}',`,
      '    CURLOPT_RETURNTRANSFER => true,',
      '    CURLOPT_TIMEOUT => 30,',
      ']);',
      '$body = curl_exec($ch);',
      '$status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);',
      'curl_close($ch);',
      "echo $status, ' ', $body, PHP_EOL;",
    ].join('\n'),
  );
  t.equal(phpString(`it's a \\ path`), `'it\\'s a \\\\ path'`);
  t.equal(phpString('中文 😀 "q"'), `'中文 😀 "q"'`);
});

t.test('go: exact text, raw body when possible, escaped otherwise', async (t) => {
  const src = codeExample('go', simple);
  t.match(src, /^package main\n\nimport \(\n\t"bytes"\n\t"fmt"\n\t"io"\n\t"net\/http"\n\)\n\nfunc main\(\) \{\n/);
  t.ok(src.includes('\tbody := []byte(`{"phone":"13800138000"}`)\n'));
  t.ok(
    src.includes('\treq, err := http.NewRequest("POST", "https://api.example.com/api/phone", bytes.NewReader(body))\n'),
  );
  t.ok(src.includes('\treq.Header.Set("X-API-Key", "sk_abc")\n'));
  t.equal(goBody('{"a":"b"}'), '`{"a":"b"}`');
  t.equal(goBody('{"a":"`"}'), '"{\\"a\\":\\"`\\"}"', 'a backtick forces an interpreted string');
  t.equal(goString('a"b\\c\n\u0007中'), '"a\\"b\\\\c\\n\\x07中"');
});

t.test('java: exact text, non-ASCII as \\u escapes', async (t) => {
  const src = codeExample('java', simple);
  t.ok(src.includes('HttpRequest.newBuilder(URI.create("https://api.example.com/api/phone"))'));
  t.ok(src.includes('.POST(HttpRequest.BodyPublishers.ofString("{\\"phone\\":\\"13800138000\\"}"))'));
  t.equal(javaString('中"\\😀\n'), '"\\u4e2d\\"\\\\\\ud83d\\ude00\\n"');
  if (!has('javac')) return void t.comment('javac not installed: compile check skipped');
  const dir = mkdtempSync(join(tmpdir(), 'codegen-java-'));
  writeFileSync(join(dir, 'TollgateExample.java'), codeExample('java', tricky));
  execFileSync('javac', ['-d', dir, join(dir, 'TollgateExample.java')], { stdio: 'pipe' });
  t.pass('the java example compiles');
});

t.test('codeExamples returns every language', async (t) => {
  t.same(Object.keys(codeExamples(simple)).sort(), [...CODE_LANGS].sort());
});
