// Runs an operation whose data comes from configured upstreams (operations.yaml `upstreams:`): each attempt is one
// call of the http plugin in the sandbox for one upstream. Tiers by `priority` (lowest first), weighted random
// order within a tier; an upstream whose circuit is open is skipped; a failure marked `next` (timeout, 5xx, risk
// control, quota, bad credential) moves on while the operation's deadline lasts, any other answer (NOT_FOUND,
// INVALID_INPUT) is final. The mapped `data` must match the operation's `response`, else the attempt failed.
// A canary's probe pinned to one upstream tries only it, whatever its circuit says, and leaves the circuit alone:
// its result moves the upstream's canary status, which takes it out of rotation and back (upstream-canary.ts); only
// an error rule's `disable_s` (a refused credential) counts from a probe too, and is announced once.
// With `cache_key`, a success is kept per key for `cache_ttl` and a NOT_FOUND for `not_found_ttl`: both are
// answered again from the cache without asking anybody.
import jsonata, { type Expression } from 'jsonata';
import type { UpstreamConfig } from '../config/upstream-config.js';
import { sendUpstreamDisabledAlerts } from '../notify/alerts/upstream-disabled.js';
import type { Operation } from '../registry/registry.js';
import type { PluginFailure } from '../sandbox/contract.js';
import { type SharedRun, serialiseResult } from '../sandbox/outcome.js';
import type { Services } from '../services.js';
import { type UpstreamHealth, upstreamHealthOf } from '../state/upstream-health.js';
import type { Validated } from './call.js';

type Failure = Extract<SharedRun, { failure: unknown }>;

/** Codes that say something about the caller's request, not about the upstream's health. */
const CALLER_CODES: ReadonlySet<string> = new Set(['INVALID_INPUT', 'NOT_FOUND', 'UNSUPPORTED']);

/** An operation's upstreams that can be tried, in tiers by priority: fixed per loaded configuration. */
const tiersOf = new WeakMap<readonly UpstreamConfig[], UpstreamConfig[][]>();
function tiers(list: readonly UpstreamConfig[]): UpstreamConfig[][] {
  let out = tiersOf.get(list);
  if (!out) {
    const byPriority = new Map<number, UpstreamConfig[]>();
    for (const u of list)
      if (u.missing.length === 0) byPriority.set(u.priority, [...(byPriority.get(u.priority) ?? []), u]);
    out = [...byPriority].sort(([a], [b]) => a - b).map(([, tier]) => tier);
    tiersOf.set(list, out);
  }
  return out;
}

/** Tiers in priority order, each shuffled by weight (a weight-0 upstream goes last in its tier). */
export function attemptOrder(list: readonly UpstreamConfig[], random: () => number = Math.random): UpstreamConfig[] {
  const out: UpstreamConfig[] = [];
  for (const tier of tiers(list)) {
    if (tier.length === 1) {
      out.push(tier[0]); // nothing to shuffle
      continue;
    }
    const pool = [...tier];
    while (pool.length) {
      const total = pool.reduce((n, u) => n + u.weight, 0);
      let i = 0;
      if (total > 0) {
        let r = random() * total;
        while (i < pool.length - 1 && (r -= pool[i].weight) >= 0) i++;
        // Rounding could land r on a trailing weight-0 entry: take a weighted one then.
        if (pool[i].weight === 0) i = pool.findIndex((x) => x.weight > 0);
      }
      out.push(pool.splice(i, 1)[0]);
    }
  }
  return out;
}

const cacheKeyExpressions = new WeakMap<UpstreamConfig, Expression>();

/** The upstream's `cache_key` over { input } (compiled once per loaded upstream), or null: not kept. */
async function upstreamCacheKey(op: Operation, u: UpstreamConfig, input: unknown): Promise<string | null> {
  if (!u.cacheKey) return null;
  let expr = cacheKeyExpressions.get(u);
  if (!expr) {
    expr = jsonata(u.cacheKey); // checked at load (upstream-expressions.ts)
    cacheKeyExpressions.set(u, expr);
  }
  const v: unknown = await expr.evaluate({ input });
  if (v === undefined || v === null || v === '') return null;
  // The spec's hash: an edited mapping or another key never reads answers kept for the old one.
  return `upc:${op.code}:${u.options.upstream.key}:${typeof v === 'string' ? v : JSON.stringify(v)}`;
}

/**
 * A kept NOT_FOUND is a JSON array (a kept success is the mapped object; `result` must be an object, so the two
 * never mix): [code, message, message_zh].
 */
const keptNotFound = (f: PluginFailure): string => JSON.stringify([f.code, f.message, f.message_zh ?? null]);
function fromKept(kept: string): { data: unknown } | { failure: Failure['failure'] } {
  const v: unknown = JSON.parse(kept);
  if (!Array.isArray(v)) return { data: v };
  const [code, message, zh] = v as [string, string, string | null];
  return { failure: { ok: false, code: code as 'NOT_FOUND', message, ...(zh ? { message_zh: zh } : {}) } };
}

/** What the operator reads about a failure (logs, alerts): the public message and the technical reason beside it. */
const operatorReason = (f: PluginFailure): string => (f.detail ? `${f.message} (${f.detail})` : f.message);

const unavailable = (): Failure => ({
  failure: {
    ok: false,
    code: 'UNAVAILABLE',
    message: 'no upstream of this operation is available now; try again later',
    message_zh: '该接口的上游暂不可用，请稍后再试',
  },
});

/** A pinned probe's view of the circuit: always admitted, nothing recorded. */
const untouched: UpstreamHealth = {
  admit: async () => true,
  succeeded: async () => undefined,
  failed: async () => false,
  disable: async () => false,
  markDown: async () => undefined,
  markUp: async () => undefined,
  down: async () => null,
  noteError: async () => undefined,
  lastError: async () => null,
};

/**
 * `base`: the operation's own plugin answered first (fallback.ts); each upstream's mapping is laid over it, and
 * the merge is what must match `response`.
 */
export async function runUpstreams(call: Validated, s: Services, base?: Record<string, unknown>): Promise<SharedRun> {
  const op = call.operation;
  const pinned = call.pinUpstream;
  const health = pinned === undefined ? upstreamHealthOf(s.state) : untouched;
  const deadline = Date.now() + op.timeoutMs;
  let last: Failure | null = null;
  const answer = (data: unknown, cacheTtl: number | undefined, u?: UpstreamConfig): SharedRun => {
    if (op.chargeRule) call.sharedData = data;
    const result = serialiseResult(data, s.settings.maxResultBytes);
    return { result, cacheTtl, ...(u ? { upstream: u.id, costMicro: u.costMicro } : {}) };
  };
  const merge = (data: unknown): unknown =>
    base && data && typeof data === 'object' && !Array.isArray(data) ? { ...base, ...data } : data;
  const order = attemptOrder(op.upstreams ?? []);
  for (const u of pinned === undefined ? order : order.filter((x) => x.id === pinned)) {
    const cacheKey = u.cacheKey ? await upstreamCacheKey(op, u, call.input) : null;
    // A pinned probe (a canary) must reach the upstream itself, never its cached answer.
    const kept = cacheKey === null || pinned !== undefined ? undefined : await s.state.cacheGet(cacheKey);
    if (kept !== undefined) {
      // Asked before for this key: no call, no cost, no upstream in the call log.
      const k = fromKept(kept);
      if ('failure' in k) return { failure: k.failure };
      const data = merge(k.data);
      if ((op.responseCheck?.(data) ?? null) === null) return answer(data, undefined);
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    const admitted = health.admit(op.code, u.id);
    if (!(admitted instanceof Promise ? await admitted : admitted)) continue;
    const { outcome } = await s.sandbox.run({
      plugin: base ? 'http' : op.plugin,
      operation: op.code,
      input: call.input,
      options: u.options,
      allowHosts: u.hosts,
      timeoutMs: Math.min(left, u.timeoutMs ?? left),
      requestId: call.requestId,
      logKey: `key:${call.identity.keyId}`,
    });
    const log = { request_id: call.requestId, operation: op.code, upstream: u.id };
    if (outcome.ok) {
      const data = merge(outcome.data);
      const bad = op.responseCheck?.(data) ?? null;
      if (bad === null) {
        void health.succeeded(op.code, u.id);
        if (cacheKey !== null) await s.state.cacheSet(cacheKey, JSON.stringify(outcome.data), u.cacheTtlS);
        return answer(data, outcome.cache_ttl, u);
      }
      s.logger.warn('upstream answer changed shape', { ...log, path: bad });
      last = {
        failure: {
          ok: false,
          code: 'UPSTREAM_FAILED',
          message: 'upstream answer changed shape',
          message_zh: '上游返回的数据格式已变化',
        },
        upstream: u.id,
      };
      await health.failed(op.code, u.id, u.failures, u.coolDownS, `changed shape: ${bad}`);
      void health.noteError(op.code, u.id, 'UPSTREAM_FAILED');
      continue;
    }
    if (outcome.code === 'INTERNAL') return { failure: outcome, upstream: u.id };
    if (CALLER_CODES.has(outcome.code)) {
      void health.succeeded(op.code, u.id);
      if (outcome.code === 'NOT_FOUND' && cacheKey !== null && pinned === undefined)
        await s.state.cacheSet(cacheKey, keptNotFound(outcome), u.notFoundTtlS);
      return { failure: outcome, upstream: u.id };
    }
    void health.noteError(op.code, u.id, outcome.code);
    if (outcome.disable_s) await disableUpstream(s, op.code, u.id, outcome, outcome.disable_s, log);
    else if (await health.failed(op.code, u.id, u.failures, u.coolDownS, operatorReason(outcome))) {
      s.logger.warn('upstream circuit opened', { ...log, cool_down_s: u.coolDownS, reason: operatorReason(outcome) });
    }
    last = { failure: outcome, upstream: u.id };
    if (outcome.next === false) return last;
  }
  return last ?? unavailable();
}

/**
 * An error rule's `disable_s`: out of rotation, logged each time; the operator is alerted (webhook and mail) only
 * by the call that disabled it, across processes, whether a customer's call or a canary's probe met the rule.
 */
async function disableUpstream(
  s: Services,
  operation: string,
  upstream: string,
  outcome: PluginFailure,
  seconds: number,
  log: Record<string, unknown>,
): Promise<void> {
  const reason = operatorReason(outcome);
  s.logger.error('upstream disabled', { ...log, code: outcome.code, seconds, reason });
  const until = Date.now() + seconds * 1000;
  if (!(await upstreamHealthOf(s.state).disable(operation, upstream, seconds, reason))) return;
  const notice = { operation, upstream, code: outcome.code, reason, seconds, until };
  const deps = { db: s.store.db, webhooks: s.webhooks, sendMail: s.mailer.send.bind(s.mailer), logger: s.logger };
  sendUpstreamDisabledAlerts(deps, notice).catch((err: Error) =>
    s.logger.warn('upstream disabled alert failed', { ...log, reason: err.message }),
  );
}
