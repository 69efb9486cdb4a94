// Shared by the jiexi tests: fixtures and a one-call runner over the real host fetch policy (createDirectHost).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginOutcome } from '../../../core/sandbox/contract.js';
import { plugin } from '../../../plugins/jiexi/handler.js';
import type { JiexiData } from '../../../plugins/jiexi/platform.js';
import { createDirectHost } from '../../helpers/direct-host.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export interface RunResult {
  outcome: PluginOutcome<JiexiData>;
  /** Every URL the plugin asked host.fetch for, in order (including refused ones). */
  fetched: string[];
}

export async function runJiexi(
  url: string,
  opts: { deadlineMs?: number; dns?: Record<string, string[]>; imageFormat?: 'png' | 'jpg' } = {},
): Promise<RunResult> {
  const host = createDirectHost({ plugin: 'jiexi', deadlineMs: opts.deadlineMs, dns: opts.dns });
  const fetched: string[] = [];
  const realFetch = host.fetch;
  host.fetch = (u, init) => {
    fetched.push(u);
    return realFetch(u, init);
  };
  try {
    const input = opts.imageFormat ? { url, image_format: opts.imageFormat } : { url };
    return { outcome: await plugin.run(input, host), fetched };
  } finally {
    host.dispose();
  }
}

/** Narrows an outcome to success, failing the test with the error otherwise. */
export function dataOf(outcome: PluginOutcome<JiexiData>): JiexiData {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`);
  return outcome.data;
}

/**
 * A nock reply that answers after `ms`. nock 15's `.delay()` does not honour fetch's AbortSignal (the delayed
 * response still resolves after the deadline), an async reply callback does: the host's abort rejects the fetch
 * with "fetch timed out:", as undici does in production.
 */
export function slowReply(ms: number, status: number, body: string): () => Promise<[number, string]> {
  return async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return [status, body];
  };
}
