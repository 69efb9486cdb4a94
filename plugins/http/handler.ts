// One attempt at one configured upstream (operations.yaml `upstreams:`): build the request from templates, fetch
// it through the host (which allows only the hosts the operation's config names), then apply the JSONata rules:
// `errors` first (first match wins), then `success`, then `result` maps the body to `data`. The gateway picks the
// upstream, walks the tiers on a failure marked `next`, checks `data` against the operation's `response` and keeps
// the health state (core/pipeline/upstreams.ts).
import type {
  Host,
  HostFetchResponse,
  OperationPlugin,
  PluginErrorCode,
  PluginOutcome,
} from '../../core/sandbox/contract.js';
import { type Compiled, compiledFor, type UpstreamSpec } from './compile.js';
import { functionsFor } from './functions.js';
import { buildRequest, RequestError } from './request.js';

type Outcome = PluginOutcome<unknown>;

/** JSONata throws plain objects with a message, not Errors. */
const errText = (e: unknown): string =>
  e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string'
    ? (e as { message: string }).message
    : String(e);

const fail = (code: PluginErrorCode, en: string, zh: string, next: boolean, disable_s?: number | null): Outcome => ({
  ok: false,
  code,
  message: en,
  message_zh: zh,
  next,
  ...(disable_s ? { disable_s } : {}),
});

function parseBody(res: HostFetchResponse): unknown {
  const t = res.body.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(res.body);
    } catch {
      return res.body;
    }
  }
  return res.body;
}

/** JSONata's sequences and undefined entries made plain JSON (what the gateway validates and sends). */
const plain = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

async function answer(
  c: Compiled,
  res: HostFetchResponse,
  input: unknown,
  host: Host,
  b: Record<string, unknown>,
): Promise<Outcome> {
  const ctx = { status: res.status, headers: res.headers, body: parseBody(res), input };
  for (const [i, rule] of c.errors.entries()) {
    if (!(await rule.when.evaluate(ctx, b))) continue;
    host.log('info', 'upstream error rule matched', { upstream: c.id, rule: i, status: res.status });
    const m = rule.message ?? { en: `${c.id}: the upstream reported an error`, zh: `上游 ${c.id} 返回错误` };
    return fail(rule.code as PluginErrorCode, m.en, m.zh, rule.next, rule.disable_s);
  }
  if (!(await c.success.evaluate(ctx, b))) {
    host.log('warn', 'upstream answer is not a success', { upstream: c.id, status: res.status });
    return fail(
      'UPSTREAM_FAILED',
      `the upstream answered with an error (HTTP ${res.status})`,
      `上游返回错误（HTTP ${res.status}）`,
      true,
    );
  }
  // A direct answer (compile.ts) is already plain: built from the parsed body, no sequences, no undefined values.
  const raw = c.result.evaluate(ctx, b);
  const data = raw instanceof Promise ? plain(await raw) : raw;
  if (data === undefined || data === null || typeof data !== 'object' || Array.isArray(data)) {
    host.log('warn', 'upstream result mapping gave no object', { upstream: c.id });
    return fail('UPSTREAM_FAILED', 'upstream answer changed shape', '上游返回的数据格式已变化', true);
  }
  return { ok: true, data };
}

export const plugin: OperationPlugin<Record<string, unknown>, unknown> = {
  async run(input, host) {
    const spec = host.options.upstream as UpstreamSpec | undefined;
    if (!spec) return fail('UNAVAILABLE', 'this operation has no upstream configured', '该接口未配置上游', false);
    const c = compiledFor(spec);
    const functions = functionsFor(host);
    let req: Awaited<ReturnType<typeof buildRequest>>;
    try {
      req = await buildRequest(c, input, functions);
    } catch (err) {
      if (err instanceof RequestError)
        return fail('INVALID_INPUT', err.message, `参数无法放入上游请求：${err.message}`, false);
      host.log('error', 'building the upstream request failed', { upstream: c.id, error: errText(err) });
      return fail('UPSTREAM_FAILED', 'the upstream request could not be built', '无法构造上游请求', true);
    }
    let res: HostFetchResponse;
    try {
      res = await host.fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      host.log('warn', 'upstream fetch failed', { upstream: c.id, error: message });
      return message.startsWith('fetch timed out')
        ? fail('UPSTREAM_TIMEOUT', 'the upstream did not answer in time', '上游未及时响应', true)
        : fail('UPSTREAM_FAILED', 'the upstream could not be reached', '无法连接上游', true);
    }
    try {
      return await answer(c, res, input, host, functions);
    } catch (err) {
      host.log('warn', 'upstream answer could not be read', {
        upstream: c.id,
        status: res.status,
        error: errText(err),
      });
      return fail('UPSTREAM_FAILED', 'upstream answer changed shape', '上游返回的数据格式已变化', true);
    }
  },
};
