// One JSON log shape everywhere, credentials redacted (the gateway's fields and a plugin's
// host.log fields at any depth), level by LOG_LEVEL, asynchronous JSON for production, pretty for a terminal.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { readLogSettings } from '../../core/config/log-env.js';
import { createLogger } from '../../core/kernel/logger.js';
import { isSecretKey, scrubSecrets } from '../../core/kernel/redact.js';
import { createSandbox } from '../../core/sandbox/sandbox.js';
import { fakeResolver, req } from '../sandbox/helpers.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function capture(level: Parameters<typeof createLogger>[0] = 'debug') {
  const raw: string[] = [];
  return { raw, logger: createLogger(level, { write: (l) => void raw.push(l) }) };
}

t.test('one line is one JSON object of a fixed shape: level, time, pid, bound fields, fields, message', async (t) => {
  const { raw, logger } = capture();
  logger.child({ request_id: 'req_1', plugin: 'echo' }).info('plugin called', { ms: 12.5, big: 10n ** 18n });
  t.equal(raw.length, 1);
  t.ok(raw[0]!.endsWith('}\n'), 'one line, newline-terminated');
  const line = JSON.parse(raw[0]!) as Record<string, unknown>;
  t.same(Object.keys(line), ['level', 'time', 'pid', 'request_id', 'plugin', 'ms', 'big', 'message']);
  t.match(line.time, ISO);
  t.same(
    { ...line, time: 'T' },
    {
      level: 'info',
      time: 'T',
      pid: process.pid,
      request_id: 'req_1',
      plugin: 'echo',
      ms: 12.5,
      big: 1e18,
      message: 'plugin called',
    },
  );
  t.notOk('msg' in line, 'no second message key (the cluster primary used to write msg)');
});

t.test('levels: below the configured one nothing is written; labels, not numbers', async (t) => {
  const { raw, logger } = capture('warn');
  logger.debug('d');
  logger.info('i');
  logger.warn('w');
  logger.error('e', { reason: 'x' });
  t.same(
    raw.map((l) => JSON.parse(l) as Record<string, unknown>).map((l) => [l.level, l.message]),
    [
      ['warn', 'w'],
      ['error', 'e'],
    ],
  );
});

t.test("the gateway's credential fields are redacted, at the top level and one level down", async (t) => {
  const { raw, logger } = capture();
  logger.child({ api_key: 'tg_live_BOUND' }).warn('login', {
    password: 'hunter2',
    authorization: 'Bearer AUTH-TOP',
    user: { email: 'a@example.com', password: 'nested-pass', token: 'TOKEN-NESTED', secret: 'S1' },
    headers: { authorization: 'Bearer AUTH-HDR', 'x-api-key': 'XKEY', accept: 'application/json' },
  });
  const text = raw.join('');
  for (const secret of [
    'tg_live_BOUND',
    'hunter2',
    'AUTH-TOP',
    'nested-pass',
    'TOKEN-NESTED',
    '"S1"',
    'AUTH-HDR',
    'XKEY',
  ])
    t.notOk(text.includes(secret), `${secret} is not in the log`);
  const line = JSON.parse(raw[0]!) as Record<string, unknown>;
  t.same(
    { ...line, time: 'T' },
    {
      level: 'warn',
      time: 'T',
      pid: process.pid,
      api_key: '[redacted]',
      password: '[redacted]',
      authorization: '[redacted]',
      user: { email: 'a@example.com', password: '[redacted]', token: '[redacted]', secret: '[redacted]' },
      headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: 'application/json' },
      message: 'login',
    },
  );
});

t.test('scrubSecrets: any depth, any spelling of a credential key; other values untouched', async (t) => {
  const input = {
    request: {
      url: 'https://up.example/x',
      headers: { Authorization: 'Bearer U', 'X-Api-Key': 'K' },
      query: [{ appkey: 'A', q: 'phone' }],
    },
    client_secret: 'CS',
    accessToken: 'AT',
    passwd: 'P',
    sign: 'SIG',
    key: 'k1',
    keys: ['a', 'b'],
    monkey: 'banana',
    empty_token: '',
  };
  t.same(scrubSecrets(input), {
    request: {
      url: 'https://up.example/x',
      headers: { Authorization: '[redacted]', 'X-Api-Key': '[redacted]' },
      query: [{ appkey: '[redacted]', q: 'phone' }],
    },
    client_secret: '[redacted]',
    accessToken: '[redacted]',
    passwd: '[redacted]',
    sign: '[redacted]',
    key: '[redacted]',
    keys: ['a', 'b'],
    monkey: 'banana',
    empty_token: '',
  });
  t.same(input.request.headers, { Authorization: 'Bearer U', 'X-Api-Key': 'K' }, 'the input is not modified');
  t.same(
    ['password', 'Private-Key', 'refresh_token', 'cookie', 'compass', 'bypass', 'tokenizer_name', 'keyword'].map(
      isSecretKey,
    ),
    [true, true, true, true, false, false, true, false],
  );
});

t.test("a plugin's host.log fields reach the log with credentials redacted at any depth", async (t) => {
  const lines: string[] = [];
  const sink = createLogger('debug', { write: (l) => void lines.push(l) });
  const sb = await createSandbox({
    pluginDirs: [fileURLToPath(new URL('../fixtures/log-plugins', import.meta.url))],
    logger: sink,
    poolSize: 1,
    resolver: fakeResolver(),
  });
  t.teardown(() => sb.close());
  const fields = {
    url: 'https://upstream.example/v1?x=1',
    request: {
      headers: { Authorization: 'Bearer UPSTREAM-AUTH', 'X-Api-Key': 'UPSTREAM-KEY' },
      body: { appkey: 'APPKEY-1', mobile: '13800138000' },
    },
    password: 'PLUGIN-PASS',
    deeper: [{ a: { b: { c: { api_key: 'DEEP-KEY' } } } }],
  };
  const r = req('log-fields', { fields });
  const { outcome } = await sb.run(r);
  t.same(outcome, { ok: true, data: { logged: true } });
  const text = lines.join('');
  for (const secret of ['UPSTREAM-AUTH', 'UPSTREAM-KEY', 'APPKEY-1', 'PLUGIN-PASS', 'DEEP-KEY'])
    t.notOk(text.includes(secret), `${secret} is not in the log`);
  const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.message === 'upstream request');
  t.match(line, {
    level: 'info',
    request_id: r.requestId,
    plugin: 'log-fields',
    url: 'https://upstream.example/v1?x=1',
    request: {
      headers: { Authorization: '[redacted]', 'X-Api-Key': '[redacted]' },
      body: { appkey: '[redacted]', mobile: '13800138000' },
    },
    password: '[redacted]',
    deeper: [{ a: { b: { c: { api_key: '[redacted]' } } } }],
  });
});

t.test('LOG_LEVEL and LOG_FORMAT: defaults, terminal detection, refusals that name the variable', async (t) => {
  t.same(readLogSettings({}, false), { level: 'info', format: 'json' });
  t.same(readLogSettings({}, true), { level: 'info', format: 'pretty' });
  t.same(readLogSettings({ LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }, true), { level: 'debug', format: 'json' });
  t.throws(() => readLogSettings({ LOG_LEVEL: 'verbose' }, false), {
    message: 'LOG_LEVEL must be one of debug, info, warn, error, got "verbose"',
  });
  t.throws(() => readLogSettings({ LOG_FORMAT: 'text' }, false), {
    message: 'LOG_FORMAT must be json or pretty, got "text"',
  });
});

const runChild = (env: Record<string, string>, lines: number, mode = 'exit') =>
  spawnSync(
    process.execPath,
    [
      '--no-node-snapshot',
      '--import',
      './core/bin/load-ts.mjs',
      fileURLToPath(new URL('./log-child.ts', import.meta.url)),
      String(lines),
      mode,
    ],
    {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );

t.test('process logger, json: asynchronous writes are all flushed when the process exits at once', async (t) => {
  const r = runChild({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, 20_000);
  t.equal(r.status, 0);
  t.equal(r.stdout, '', 'logs go to stderr; stdout stays for the command output');
  const lines = r.stderr
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  t.equal(lines.length, 20_000, 'every line, none lost to process.exit');
  t.same(
    { ...lines[19_999], time: 'T', pid: 0 },
    {
      level: 'info',
      time: 'T',
      pid: 0,
      role: 'child',
      n: 19_999,
      password: '[redacted]',
      headers: { authorization: '[redacted]' },
      message: 'line 19999',
    },
  );
  t.notOk(/hunter2-child|child-secret|debug line/.test(r.stderr));
});

t.test('process logger, json: flushSync() writes out the buffer before process.abort()', async (t) => {
  const r = runChild({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, 5_000, 'abort');
  t.equal(r.signal, 'SIGABRT');
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('{"level"'));
  t.equal(lines.length, 5_000, 'every line');
  t.match(JSON.parse(lines.at(-1)!), { message: 'line 4999', n: 4999 });
});

t.test('process logger, pretty: human-readable lines, still redacted', async (t) => {
  const r = runChild({ LOG_LEVEL: 'debug', LOG_FORMAT: 'pretty', NO_COLOR: '1', FORCE_COLOR: '0' }, 2);
  t.equal(r.status, 0);
  t.match(r.stderr, /INFO.*line 0/);
  t.match(r.stderr, /DEBUG.*debug line/);
  t.match(r.stderr, /password: "\[redacted\]"/);
  t.notOk(r.stderr.trimStart().startsWith('{'), 'not JSON');
  t.notOk(/hunter2-child|child-secret/.test(r.stderr));
});
