import type { PluginErrorCode, PluginFailure } from '../../core/sandbox/contract.js';

/**
 * A failure in both languages: the gateway answers each caller wholly in its own. Both say what failed for the
 * caller; `detail`, when given, is the operator's technical reason (a network error's host and errno, a
 * provider's raw answer): logged by the gateway with the request id, never shown to the caller.
 */
export const failure = <C extends PluginErrorCode>(
  code: C,
  message: string,
  message_zh: string,
  detail?: string,
): PluginFailure & { code: C; message_zh: string } =>
  detail === undefined ? { ok: false, code, message, message_zh } : { ok: false, code, message, message_zh, detail };

/** The text of a thrown value (a host.fetch rejection is an Error whose message names the host and errno). */
export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** host.fetch rejects with "fetch timed out: …" when the deadline or the request's own timeout passed. */
export const isFetchTimeout = (reason: string): boolean => reason.startsWith('fetch timed out:');
