import type { PluginErrorCode, PluginFailure } from '../../core/sandbox/contract.js';

/**
 * A failure in both languages: the gateway answers each caller wholly in its own. The English may keep a source's
 * own reason for the operator; the Chinese says what it means for the caller.
 */
export const failure = <C extends PluginErrorCode>(
  code: C,
  message: string,
  message_zh: string,
): PluginFailure & { code: C; message_zh: string } => ({ ok: false, code, message, message_zh });
