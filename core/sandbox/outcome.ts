// What a finished plugin call turns into. Plugins are untrusted: their return value is checked for shape, and
// anything the caller sees on failure is a public message, never a stack or an internal reason.
import type { PluginErrorCode, PluginFailure, PluginOutcome } from './contract.js';

export type SandboxOutcome = PluginOutcome<unknown> | { ok: false; code: 'INTERNAL'; message: string };

export const PLUGIN_ERROR_CODES: ReadonlySet<PluginErrorCode> = new Set<PluginErrorCode>([
  'INVALID_INPUT',
  'NOT_FOUND',
  'UNSUPPORTED',
  'UPSTREAM_FAILED',
  'UPSTREAM_TIMEOUT',
  'UNAVAILABLE',
]);

const MAX_MESSAGE = 500;
/** The operator's reason is logged, never sent: longer than a message, still bounded for the log line. */
const MAX_DETAIL = 2000;

/** The only thing a caller learns about a crash: which plugin, and to quote the request id. */
export function internalOutcome(plugin: string): SandboxOutcome {
  return { ok: false, code: 'INTERNAL', message: `plugin ${plugin} failed; quote the request id` };
}

export function timeoutOutcome(plugin: string, deadlineMs: number): SandboxOutcome {
  return { ok: false, code: 'UPSTREAM_TIMEOUT', message: `${plugin}: upstream did not answer within ${deadlineMs} ms` };
}

/**
 * A host.fetch rejection the plugin let escape: the caller learns that the plugin's upstream request failed or
 * timed out, in both languages; the host's own text (host name, errno) is kept as the operator's detail.
 */
export function escapedFetchOutcome(
  plugin: string,
  kind: 'refused' | 'failed' | 'timeout',
  hostMessage: string,
): SandboxOutcome {
  return kind === 'timeout'
    ? {
        ok: false,
        code: 'UPSTREAM_TIMEOUT',
        message: `${plugin}: the upstream request timed out, please retry later`,
        message_zh: `${plugin}：上游请求超时，请稍后重试`,
        detail: hostMessage,
      }
    : {
        ok: false,
        code: 'UPSTREAM_FAILED',
        message: `${plugin}: the upstream request failed, please retry later`,
        message_zh: `${plugin}：上游请求失败，请稍后重试`,
        detail: hostMessage,
      };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A valid outcome as is, or the reason it is not one (logged; the caller gets INTERNAL). */
export function checkOutcome(value: unknown): { outcome: PluginOutcome<unknown> } | { invalid: string } {
  if (!isRecord(value))
    return { invalid: `run() returned ${value === null ? 'null' : typeof value}, not an outcome object` };
  if (value.ok === true) {
    if (!('data' in value) || value.data === undefined) return { invalid: 'outcome {ok:true} has no data' };
    const ttl = value.cache_ttl;
    if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0)) {
      return { invalid: 'outcome cache_ttl must be a non-negative integer' };
    }
    return {
      outcome: ttl === undefined ? { ok: true, data: value.data } : { ok: true, data: value.data, cache_ttl: ttl },
    };
  }
  if (value.ok === false) {
    const { code, message } = value;
    if (typeof code !== 'string' || !PLUGIN_ERROR_CODES.has(code as PluginErrorCode)) {
      return { invalid: `outcome code ${JSON.stringify(code)} is not one of ${[...PLUGIN_ERROR_CODES].join(', ')}` };
    }
    if (typeof message !== 'string') return { invalid: 'outcome {ok:false} has no string message' };
    const failure: PluginFailure = { ok: false, code: code as PluginErrorCode, message: message.slice(0, MAX_MESSAGE) };
    if (typeof value.message_zh === 'string') failure.message_zh = value.message_zh.slice(0, MAX_MESSAGE);
    if (typeof value.detail === 'string') failure.detail = value.detail.slice(0, MAX_DETAIL);
    if (typeof value.next === 'boolean') failure.next = value.next;
    const d = value.disable_s;
    if (typeof d === 'number' && Number.isInteger(d) && d > 0) failure.disable_s = Math.min(d, 7 * 86_400);
    return { outcome: failure };
  }
  return { invalid: 'outcome has no boolean ok' };
}

export type SerialisedResult = { json: string } | { invalid: string; tooLarge: boolean };

/**
 * One plugin run shared by the calls of a single flight (core/kernel/single-flight.ts), its successful result
 * serialised once for all of them (core/pipeline/run-plugin.ts).
 */
export type SharedRun =
  | { failure: Extract<SandboxOutcome, { ok: false }>; upstream?: string }
  | {
      result: SerialisedResult;
      cacheTtl: number | undefined;
      /** The configured upstream that served it (operations.yaml `upstreams:`) and what that call cost us. */
      upstream?: string;
      costMicro?: number;
      /** The operation's charge_when said false for this answer (decided on the object, before it became text). */
      free?: boolean;
    };

/**
 * The result's JSON text, made once before any money moves: the same bytes are sent, stored for an idempotent
 * replay and cached. A result that cannot be JSON (a bigint, a cycle) or is bigger than `maxBytes` can never be
 * delivered, so the call fails and is not charged.
 */
export function serialiseResult(data: unknown, maxBytes: number): SerialisedResult {
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch (err) {
    return { invalid: `result is not JSON-serialisable: ${errorText(err)}`, tooLarge: false };
  }
  if (json === undefined) return { invalid: 'result is not JSON-serialisable', tooLarge: false };
  // UTF-16 length is a lower bound of the UTF-8 size (and exact for ASCII): only compute bytes when it matters.
  if (json.length > maxBytes || (json.length * 3 > maxBytes && Buffer.byteLength(json) > maxBytes)) {
    return {
      invalid: `result of ${Buffer.byteLength(json)} bytes exceeds MAX_RESULT_BYTES (${maxBytes})`,
      tooLarge: true,
    };
  }
  return { json };
}

/** How an isolate-side rejection reads, for classification: isolated-vm reports its own failures by message. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
}

export function errorDetail(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return errorText(err);
}

/** isolated-vm's own messages (5.0.4) for the failures the pool must tell apart. */
export const IVM = {
  syncTimeout: (m: string) => m.includes('Script execution timed out'),
  memoryLimit: (m: string) => m.includes('due to memory limit'),
  gone: (m: string) =>
    m.includes('Promise was abandoned') || m.includes('Isolate is disposed') || m.includes('was disposed'),
};
