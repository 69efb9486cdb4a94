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
import { MISS } from './fast-path.js';
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

type Context = { status: number; headers: Record<string, string>; body: unknown; input: unknown };

const errorRuleMatched = (c: Compiled, i: number, status: number, host: Host): Outcome => {
  const rule = c.errors[i];
  host.log('info', 'upstream error rule matched', { upstream: c.id, rule: i, status });
  const m = rule.message ?? { en: `${c.id}: the upstream reported an error`, zh: `上游 ${c.id} 返回错误` };
  return fail(rule.code as PluginErrorCode, m.en, m.zh, rule.next, rule.disable_s);
};

const notSuccess = (c: Compiled, status: number, host: Host): Outcome => {
  host.log('warn', 'upstream answer is not a success', { upstream: c.id, status });
  return fail(
    'UPSTREAM_FAILED',
    `the upstream answered with an error (HTTP ${status})`,
    `上游返回错误（HTTP ${status}）`,
    true,
  );
};

const mapped = (c: Compiled, data: unknown, host: Host): Outcome => {
  if (data === undefined || data === null || typeof data !== 'object' || Array.isArray(data)) {
    host.log('warn', 'upstream result mapping gave no object', { upstream: c.id });
    return fail('UPSTREAM_FAILED', 'upstream answer changed shape', '上游返回的数据格式已变化', true);
  }
  return { ok: true, data };
};

/**
 * The rules by their direct forms (compile.ts `now`), with no promise: the outcome, or MISS as soon as a rule the
 * outcome depends on needs JSONata (nothing has been logged then, and `answer` starts over).
 */
function answerNow(c: Compiled, ctx: Context, host: Host): Outcome | typeof MISS {
  for (let i = 0; i < c.errors.length; i++) {
    const v = c.errors[i].when.now(ctx);
    if (v === MISS) return MISS;
    if (v) return errorRuleMatched(c, i, ctx.status, host);
  }
  const ok = c.success.now(ctx);
  if (ok === MISS) return MISS;
  if (!ok) return notSuccess(c, ctx.status, host);
  // A direct answer is already plain JSON: built from the parsed body, no sequences, no undefined values.
  const data = c.result.now(ctx);
  return data === MISS ? MISS : mapped(c, data, host);
}

async function answer(c: Compiled, ctx: Context, host: Host, b: Record<string, unknown>): Promise<Outcome> {
  for (const [i, rule] of c.errors.entries()) {
    if (await rule.when.evaluate(ctx, b)) return errorRuleMatched(c, i, ctx.status, host);
  }
  if (!(await c.success.evaluate(ctx, b))) return notSuccess(c, ctx.status, host);
  const raw = c.result.evaluate(ctx, b);
  return mapped(c, raw instanceof Promise ? plain(await raw) : raw, host);
}

const answerFailed = (c: Compiled, status: number, err: unknown, host: Host): Outcome => {
  host.log('warn', 'upstream answer could not be read', { upstream: c.id, status, error: errText(err) });
  return fail('UPSTREAM_FAILED', 'upstream answer changed shape', '上游返回的数据格式已变化', true);
};

// One await per call when every rule answers directly (the fetch), as in a hand-written plugin: the request and
// the answer are then made synchronously, and the helper bindings are never built.
export const plugin: OperationPlugin<Record<string, unknown>, unknown> = {
  async run(input, host) {
    const spec = host.options.upstream as UpstreamSpec | undefined;
    if (!spec) return fail('UNAVAILABLE', 'this operation has no upstream configured', '该接口未配置上游', false);
    const c = compiledFor(spec);
    let functions: Record<string, unknown> | undefined;
    const bindings = (): Record<string, unknown> => (functions ??= functionsFor(host));
    let req: Awaited<ReturnType<typeof buildRequest>>;
    try {
      const built = buildRequest(c, input, bindings);
      req = built instanceof Promise ? await built : built;
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
      // The host's text (host name, errno) is the operator's detail: logged by the gateway, never shown.
      return message.startsWith('fetch timed out')
        ? {
            ...fail('UPSTREAM_TIMEOUT', 'the upstream did not answer in time', '上游未及时响应', true),
            detail: message,
          }
        : { ...fail('UPSTREAM_FAILED', 'the upstream could not be reached', '无法连接上游', true), detail: message };
    }
    let ctx: Context;
    try {
      ctx = { status: res.status, headers: res.headers, body: parseBody(res), input };
      const now = answerNow(c, ctx, host);
      if (now !== MISS) return now;
    } catch (err) {
      return answerFailed(c, res.status, err, host);
    }
    try {
      return await answer(c, ctx, host, bindings());
    } catch (err) {
      return answerFailed(c, res.status, err, host);
    }
  },
};
