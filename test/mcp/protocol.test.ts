// POST /mcp at the wire: the transport rules of stateless Streamable HTTP (405 for GET/DELETE, 202 for
// notifications, version header, content negotiation) and the JSON-RPC errors of malformed messages.
import t from 'tap';
import type { TestApp } from '../helpers/create-test-app.js';
import { rpc, shippedApp } from './support.js';

let h: TestApp;
let key: string;
t.before(async () => {
  h = await shippedApp();
  key = (await h.user('1')).key;
});
t.teardown(() => h.close());

const auth = () => ({ 'X-API-Key': key });

t.test('GET and DELETE are 405 (no SSE stream, no sessions), with Allow: POST', async (t) => {
  for (const method of ['GET', 'DELETE']) {
    const res = await h.client.request('/mcp', { method, headers: { ...auth(), accept: 'text/event-stream' } });
    t.equal(res.status, 405, method);
    t.equal(res.headers.allow, 'POST');
    t.equal(res.body.error.code, 'METHOD_NOT_ALLOWED');
  }
});

t.test('no key: 401 with WWW-Authenticate and a JSON-RPC error naming MISSING_API_KEY', async (t) => {
  const res = await rpc(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  t.equal(res.status, 401);
  t.equal(res.headers['www-authenticate'], 'Bearer realm="tollgate"');
  t.same(res.body, {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32001,
      message: 'No API key: send it in the X-API-Key header or as Authorization: Bearer sk_...',
      data: {
        code: 'MISSING_API_KEY',
        hint: "Create a key on the console's API keys page and send it with every request.",
      },
    },
  });
  const zh = await rpc(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'Accept-Language': 'zh-CN,zh;q=0.9' });
  t.equal(zh.body.error.message, '缺少 API 密钥：请在 X-API-Key 请求头或 Authorization: Bearer sk_... 中发送。');
  const bearer = await rpc(h, { jsonrpc: '2.0', id: 1, method: 'ping' }, { Authorization: 'Basic abc' });
  t.equal(bearer.status, 401, 'only a Bearer token counts');
});

t.test('initialize: the asked version when supported, else the newest; tools capability; no session id', async (t) => {
  const init = (protocolVersion?: string) =>
    rpc(
      h,
      {
        jsonrpc: '2.0',
        id: 'init-1',
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
      auth(),
    );
  const res = await init('2025-06-18');
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.headers['mcp-session-id'], undefined);
  t.match(res.body, {
    jsonrpc: '2.0',
    id: 'init-1',
    result: {
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'tollgate' },
    },
  });
  t.equal((await init('2024-11-05')).body.result.protocolVersion, '2025-11-25');
  t.same((await init(undefined)).body, {
    jsonrpc: '2.0',
    id: 'init-1',
    error: { code: -32602, message: 'initialize needs params.protocolVersion.' },
  });
});

t.test('notifications and client responses: 202, empty body', async (t) => {
  for (const msg of [
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 7, result: {} },
  ]) {
    const res = await rpc(h, msg, auth());
    t.equal(res.status, 202);
    t.equal(res.text, '');
  }
});

t.test('ping, and an unknown method is -32601 with the request id', async (t) => {
  t.same((await rpc(h, { jsonrpc: '2.0', id: 3, method: 'ping' }, auth())).body, { jsonrpc: '2.0', id: 3, result: {} });
  const res = await rpc(h, { jsonrpc: '2.0', id: 4, method: 'resources/list' }, auth());
  t.equal(res.status, 200);
  t.same(res.body, { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'Method not found: resources/list' } });
});

t.test('malformed messages: parse error, batch, not JSON-RPC, bad params', async (t) => {
  const parse = await rpc(h, '{"jsonrpc":"2.0",', auth());
  t.equal(parse.status, 400);
  t.same(parse.body, {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32700, message: 'The request body is not valid JSON.' },
  });
  const batch = await rpc(h, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], auth());
  t.equal(batch.status, 400);
  t.equal(batch.body.error.code, -32600);
  t.match(batch.body.error.message, /batches are not supported/);
  const v1 = await rpc(h, { id: 1, method: 'ping' }, auth());
  t.same([v1.status, v1.body.id, v1.body.error.code], [400, 1, -32600]);
  const params = await rpc(h, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: [1] }, auth());
  t.same([params.status, params.body.error.code], [400, -32602]);
  const big = await rpc(h, { jsonrpc: '2.0', id: 6, method: 'ping', params: { pad: 'x'.repeat(300 * 1024) } }, auth());
  t.same([big.status, big.body.error], [413, { code: -32600, message: 'The request body is over 256 KB.' }]);
  const args = await rpc(
    h,
    { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'phone', arguments: 'x' } },
    auth(),
  );
  t.same(args.body, { jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'params.arguments must be an object.' } });
});

t.test('transport rules: Content-Type, Accept, MCP-Protocol-Version', async (t) => {
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const text = await h.client.request('/mcp', {
    method: 'POST',
    body: ping,
    headers: { ...auth(), 'content-type': 'text/plain' },
  });
  t.equal(text.status, 415);
  t.equal(text.body.error.code, -32600);
  const html = await rpc(h, ping, { ...auth(), accept: 'text/html' });
  t.equal(html.status, 406);
  const old = await rpc(h, ping, { ...auth(), 'MCP-Protocol-Version': '1999-01-01' });
  t.equal(old.status, 400);
  t.match(old.body.error.message, /Unsupported MCP-Protocol-Version 1999-01-01; supported: 2025-11-25, 2025-06-18/);
  t.equal((await rpc(h, ping, { ...auth(), 'MCP-Protocol-Version': '2025-06-18' })).status, 200);
  t.equal((await rpc(h, ping, { ...auth(), accept: '*/*' })).status, 200, 'curl-style Accept is fine');
});

t.test("a tool call answers with the call's request id and the key's rate-limit headers", async (t) => {
  const res = await rpc(
    h,
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'phone', arguments: { phone: '13800138000' } } },
    auth(),
  );
  t.equal(res.status, 200);
  t.equal(res.body.result._meta.request_id, res.headers['x-request-id']);
  t.equal(res.headers['retry-after'], undefined);
  t.ok(res.headers['x-ratelimit-limit']);
  t.equal(res.headers['cache-control'], 'no-store');
});

t.test(
  'an idempotency_key that is not a string is refused with INVALID_PARAMS, never ignored; nothing charged',
  async (t) => {
    const u = await h.user('1');
    for (const idem of [123, 123, true, { k: 1 }, null]) {
      const res = await rpc(
        h,
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'phone', arguments: { phone: '13800138000' }, _meta: { idempotency_key: idem } },
        },
        { 'X-API-Key': u.key },
      );
      t.equal(res.status, 200);
      t.same(res.body, {
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32602, message: 'params._meta.idempotency_key must be a string.' },
      });
    }
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
    t.same(
      (await h.ledger(u.userId)).map((r) => r.kind),
      ['grant'],
    );
    t.same(await h.callLog(u.userId), [], 'no call was made');
  },
);
