// POST /mcp with the MCP SDK's own client: tools are the available operations, a tool call is an /api call (same
// key checks, billing, ledger row, call log, idempotency) and a failure is a free isError result with our code.

import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { toolOf } from '../../core/mcp/tools.js';
import type { TestApp } from '../helpers/create-test-app.js';
import { connect, shippedApp } from './support.js';

let h: TestApp;
t.before(async () => {
  h = await shippedApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const PHONE_DATA = {
  phone: '13800138000',
  province: '北京',
  city: '北京',
  carrier: '中国移动',
  card_type: '中国移动',
  is_virtual: false,
  segment: '138',
  area_code: '010',
  zip: '100000',
  precision: 'city',
  source: 'libphonenumber',
};

t.test('tools/list: every available operation, priced, with its input schema', async (t) => {
  const u = await h.user('1');
  const client = await connect(h, { 'X-API-Key': u.key });
  t.teardown(() => client.close());
  t.same(client.getServerVersion(), { name: 'tollgate', title: 'Tollgate', version: h.services.version });
  const { tools } = await client.listTools();
  // kuaid needs a courier provider's credentials, none are set here: it would only refuse, so it is not offered.
  t.same(
    tools.map((tool) => tool.name),
    ['phone', 'jiexi', 'kuaid_detect', 'douyin'],
  );
  const phone = tools[0];
  const op = h.services.registry.current.get('phone')!;
  // One language (English without Accept-Language), the price, and "free within a plan" only where a plan has it.
  t.equal(phone.title, 'Mobile number location');
  t.equal(
    phone.description,
    `${op.text.en.description}\nPrice: 0.005 TOKEN per successful call; failed calls are free; free within a plan's quota.`,
  );
  t.same(phone.annotations, {
    title: 'Mobile number location',
    readOnlyHint: true,
    destructiveHint: false,
    openWorldHint: false,
  });
  t.equal(tools[1].annotations?.openWorldHint, true, 'jiexi fetches from the platforms');
  const zhClient = await connect(h, { 'X-API-Key': u.key, 'Accept-Language': 'zh-CN' });
  t.teardown(() => zhClient.close());
  const zhPhone = (await zhClient.listTools()).tools[0];
  t.equal(zhPhone.title, '手机号归属地');
  t.equal(
    zhPhone.description,
    `${op.text.zh.description}\n价格：每次成功调用 0.005 TOKEN，失败不扣费；套餐额度内免费。`,
  );
  // The operation's input schema with English field descriptions only (the Chinese is for the console).
  const { 'x-description-zh': zh, ...phoneField } = op.input.properties!.phone;
  t.match(zh, /^中国大陆手机号/);
  t.same(phone.inputSchema, {
    ...op.input,
    properties: { phone: phoneField },
    examples: [{ phone: '13800138000' }],
  });
  t.match(phoneField.description, /^Mainland mobile number/);
  // outputSchema from operations.yaml `response:`: every declared field, typed and required, English descriptions;
  // open to added fields so a client never rejects a paid result for one.
  const out = phone.outputSchema as {
    type: string;
    properties: Record<string, Record<string, unknown>>;
    required: string[];
  };
  t.equal(out.type, 'object');
  t.same(Object.keys(out.properties), Object.keys(op.response!));
  t.same(
    out.required,
    Object.keys(op.response!).filter((name) => !op.response![name].optional),
  );
  t.same(out.properties.province.type, ['string', 'null']);
  t.equal(out.properties.province.description, op.response!.province.en);
  t.notOk(JSON.stringify(tools.map((tool) => tool.outputSchema)).includes('"additionalProperties":false'));
  t.ok(
    tools.every((tool) => tool.outputSchema),
    'every shipped operation declares its response',
  );
  t.match(tools[1].description, /Price: 0\.01 TOKEN per successful call/);
  t.match(tools[2].description, /Price: 0\.001 TOKEN per successful call/);
});

t.test('tools/list: a key limited to some operations sees only those', async (t) => {
  const u = await h.user('1', { allowed_codes: ['phone', 'kuaid'] });
  const client = await connect(h, { 'X-API-Key': u.key });
  t.teardown(() => client.close());
  t.same(
    (await client.listTools()).tools.map((tool) => tool.name),
    ['phone'],
  );
});

t.test('tools/call phone: the data, the charge, one ledger row, one call-log row', async (t) => {
  const u = await h.user('1');
  const client = await connect(h, { Authorization: `Bearer ${u.key}` });
  t.teardown(() => client.close());
  // Listing first makes the SDK client check structuredContent against the tool's outputSchema on the call.
  await client.listTools();
  const res = await client.callTool({ name: 'phone', arguments: { phone: '13800138000' } });
  t.equal(res.isError, undefined);
  t.same(res.structuredContent, PHONE_DATA);
  const requestId = (res._meta as { request_id: string }).request_id;
  t.match(requestId, /^req_/);
  t.same(res._meta, { deducted: 0.005, remaining: 0.995, request_id: requestId, cached: false });
  t.same(res.content, [
    { type: 'text', text: JSON.stringify(PHONE_DATA) },
    { type: 'text', text: 'Charged 0.005 TOKEN; balance 0.995 TOKEN.' },
  ]);
  t.same(await h.balance(u.userId), { balance: 995_000, held: 0 });
  t.same((await h.ledger(u.userId)).slice(1), [
    { amount: -5000, kind: 'charge', ref: requestId, balance_after: 995_000, operation: 'phone' },
  ]);
  const log = await h.callLog(u.userId);
  t.match(log, [
    {
      request_id: requestId,
      key_id: u.keyId,
      operation: 'phone',
      status: 200,
      error_code: null,
      charged: 5000,
      cached: 0,
    },
  ]);
  t.equal(log.length, 1);
});

t.test('tools/call with bad arguments: isError INVALID_INPUT with a hint, nothing charged', async (t) => {
  const u = await h.user('1');
  const client = await connect(h, { 'X-API-Key': u.key });
  t.teardown(() => client.close());
  const res = await client.callTool({ name: 'phone', arguments: { phone: '1380013800' } });
  t.equal(res.isError, true);
  t.equal(res.structuredContent, undefined);
  const meta = res._meta as { request_id: string; error: Record<string, unknown> };
  const error = {
    code: 'INVALID_INPUT',
    message: 'phone is too short: 10 digits, a mainland mobile number has 11',
    hint: 'Check the parameter names, types and formats against the docs; the message says which one is wrong. Nothing was charged.',
  };
  t.same(res._meta, { deducted: 0, remaining: 1, request_id: meta.request_id, error });
  t.same(res.content, [
    { type: 'text', text: JSON.stringify({ error, deducted: 0, remaining: 1, request_id: meta.request_id }) },
  ]);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.equal((await h.ledger(u.userId)).length, 1, 'only the opening grant');
  t.match(await h.callLog(u.userId), [
    { request_id: meta.request_id, operation: 'phone', status: 400, error_code: 'INVALID_INPUT', charged: 0 },
  ]);
});

t.test(
  'tools/call without enough balance: isError INSUFFICIENT_BALANCE (in Chinese when asked), balance unchanged',
  async (t) => {
    const u = await h.user('0.001');
    const client = await connect(h, { 'X-API-Key': u.key, 'Accept-Language': 'zh-CN' });
    t.teardown(() => client.close());
    const res = await client.callTool({ name: 'phone', arguments: { phone: '13800138000' } });
    t.equal(res.isError, true);
    t.match(res._meta, {
      deducted: 0,
      remaining: 0.001,
      error: {
        code: 'INSUFFICIENT_BALANCE',
        message: '本次调用需 0.005 TOKEN，可用余额不足。请充值后继续。',
        hint: /充值/,
      },
    });
    t.same(await h.balance(u.userId), { balance: 1000, held: 0 });
    t.equal((await h.ledger(u.userId)).length, 1);
  },
);

t.test('tools/call of an operation this server cannot serve, or this key may not call: isError, free', async (t) => {
  const u = await h.user('1', { allowed_codes: ['phone', 'kuaid'] });
  const client = await connect(h, { 'X-API-Key': u.key });
  t.teardown(() => client.close());
  const unavailable = await client.callTool({ name: 'kuaid', arguments: { no: 'SF1385628716739', phone: '5678' } });
  t.equal(unavailable.isError, true);
  t.match(unavailable._meta, { deducted: 0, error: { code: 'OPERATION_UNAVAILABLE' } });
  t.notMatch(JSON.stringify(unavailable), /KUAIDI100|KDNIAO/, 'no operator detail');
  const notAllowed = await client.callTool({ name: 'jiexi', arguments: { url: 'https://b23.tv/aB3dE5f' } });
  t.match(notAllowed._meta, {
    deducted: 0,
    error: { code: 'OPERATION_NOT_ALLOWED', message: 'This API key may not call "jiexi".' },
  });
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test(
  "the key's limits apply: a call over its concurrency cap is isError CONCURRENCY_LIMITED with retry_after, free",
  async (t) => {
    const u = await h.user('1', { max_concurrency: 1 });
    const client = await connect(h, { 'X-API-Key': u.key });
    t.teardown(() => client.close());
    // Another call of this key holds its only in-flight slot.
    const slot = await h.services.state.acquireSlot(`inflight:${u.keyId}`, 1, 60_000);
    t.ok(slot);
    const res = await client.callTool({ name: 'phone', arguments: { phone: '13800138000' } });
    await h.services.state.releaseSlot(`inflight:${u.keyId}`, slot!);
    t.equal(res.isError, true);
    t.match(res._meta, {
      deducted: 0,
      remaining: 1,
      error: { code: 'CONCURRENCY_LIMITED', message: 'At most 1 calls may be in flight for this key.', retry_after: 1 },
    });
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
    const after = await client.callTool({ name: 'phone', arguments: { phone: '13800138000' } });
    t.equal(after.isError, undefined, 'the slot is free again');
  },
);

t.test('an unknown tool is a protocol error (-32602), not a call', async (t) => {
  const u = await h.user('1');
  const client = await connect(h, { 'X-API-Key': u.key });
  t.teardown(() => client.close());
  const err = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: unknown) => e);
  t.ok(err instanceof McpError);
  t.equal((err as McpError).code, -32602);
  t.match((err as McpError).message, /Unknown tool: no_such_tool/);
  t.same(await h.callLog(u.userId), []);
});

t.test('a wrong or missing key is refused at the HTTP level: the client cannot even initialize', async (t) => {
  const bad = await connect(h, { 'X-API-Key': `sk_${'x'.repeat(43)}` }).catch((e: unknown) => e);
  t.ok(bad instanceof StreamableHTTPError);
  t.equal((bad as StreamableHTTPError).code, 401);
  t.match((bad as Error).message, /INVALID_API_KEY/);
  const missing = await connect(h, {}).catch((e: unknown) => e);
  t.equal((missing as StreamableHTTPError).code, 401);
  t.match((missing as Error).message, /MISSING_API_KEY/);
  const u = await h.user('1');
  await h.services.store.db.updateTable('api_keys').set({ status: 'disabled' }).where('id', '=', u.keyId).execute();
  const disabled = await connect(h, { 'X-API-Key': u.key }).catch((e: unknown) => e);
  t.equal((disabled as StreamableHTTPError).code, 403);
  t.match((disabled as Error).message, /KEY_DISABLED/);
  // The key's IP allow-list sees the real client address (127.0.0.1), not something of the MCP layer.
  const fenced = await h.user('1', { ip_allow: ['10.0.0.0/8'] });
  const elsewhere = await connect(h, { 'X-API-Key': fenced.key }).catch((e: unknown) => e);
  t.equal((elsewhere as StreamableHTTPError).code, 403);
  t.match((elsewhere as Error).message, /may not be used from 127\.0\.0\.1.*IP_NOT_ALLOWED/);
  t.same(await h.balance(fenced.userId), { balance: 1_000_000, held: 0 });
});

t.test(
  'idempotency: the same Idempotency-Key (header or _meta) replays the first result and charges once',
  async (t) => {
    const u = await h.user('1');
    const viaHeader = await connect(h, { 'X-API-Key': u.key, 'Idempotency-Key': 'mcp-retry-1' });
    t.teardown(() => viaHeader.close());
    // A number no other test asks for, so the first call is a fresh (uncached) lookup.
    const first = await viaHeader.callTool({ name: 'phone', arguments: { phone: '13700137000' } });
    const again = await viaHeader.callTool({ name: 'phone', arguments: { phone: '13700137000' } });
    const firstId = (first._meta as { request_id: string }).request_id;
    t.same(first._meta, { deducted: 0.005, remaining: 0.995, request_id: firstId, cached: false });
    t.same(again._meta, {
      deducted: 0.005,
      remaining: 0.995,
      request_id: firstId,
      cached: false,
      idempotent_replayed: true,
    });
    t.match(first.structuredContent, { phone: '13700137000', segment: '137' });
    // The replay's text says it was not charged again (an agent reading only the text must not think it paid twice).
    t.same(
      (again.content as Array<{ text: string }>)[1].text,
      "A replay of the first call's answer for this Idempotency-Key: nothing was charged this time.",
    );
    t.same(again.structuredContent, first.structuredContent);
    const conflict = await viaHeader.callTool({ name: 'phone', arguments: { phone: '13900139000' } });
    t.match(conflict._meta, { deducted: 0, error: { code: 'IDEMPOTENCY_CONFLICT' } });

    const plain = await connect(h, { 'X-API-Key': u.key });
    t.teardown(() => plain.close());
    const a = await plain.callTool({
      name: 'kuaid_detect',
      arguments: { no: '434080499334709' },
      _meta: { idempotency_key: 'mcp-meta-1' },
    });
    const b = await plain.callTool({
      name: 'kuaid_detect',
      arguments: { no: '434080499334709' },
      _meta: { idempotency_key: 'mcp-meta-1' },
    });
    t.equal(a.isError, undefined);
    t.equal((b._meta as { idempotent_replayed?: boolean }).idempotent_replayed, true);
    t.equal((b._meta as { request_id: string }).request_id, (a._meta as { request_id: string }).request_id);
    const charges = (await h.ledger(u.userId)).filter((r) => r.kind === 'charge');
    t.same(
      charges.map((r) => [r.operation, r.amount]),
      [
        ['phone', -5000],
        ['kuaid_detect', -1000],
      ],
    );
    t.same(await h.balance(u.userId), { balance: 994_000, held: 0 });
  },
);

t.test('a code no plan includes is not promised "free within a plan"', async (t) => {
  const op = h.services.registry.current.get('phone')!;
  const none = { planCodes: new Set<string>(), reachesOut: () => false };
  t.equal(
    toolOf(op, { ...none, locale: 'en' }).description,
    `${op.text.en.description}\nPrice: 0.005 TOKEN per successful call; failed calls are free.`,
  );
  t.equal(
    toolOf(op, { ...none, locale: 'zh' }).description,
    `${op.text.zh.description}\n价格：每次成功调用 0.005 TOKEN，失败不扣费。`,
  );
});
