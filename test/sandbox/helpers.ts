// Shared by the sandbox tests: fixture paths, a fake DNS, and a memory logger to assert on.
import { fileURLToPath } from 'node:url';
import type { Resolver } from '../../core/sandbox/address-policy.js';
import type { RunRequest } from '../../core/sandbox/sandbox.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/plugins', import.meta.url));

/** Every name resolves to a public address (example.com's) unless listed: no test touches real DNS. */
export function fakeResolver(map: Record<string, string[]> = {}): Resolver {
  return async (hostname) => map[hostname] ?? ['93.184.216.34'];
}

let seq = 0;
export function req(plugin: string, input: Record<string, unknown> = {}, extra: Partial<RunRequest> = {}): RunRequest {
  return {
    plugin,
    operation: `${plugin}-op`,
    input,
    options: {},
    timeoutMs: 10_000,
    requestId: `req_test_${++seq}`,
    ...extra,
  };
}

/**
 * A nock reply that arrives after `ms`: headers and body both wait, like a slow server, and an aborted fetch
 * rejects at once (nock's own .delay() sends the headers at once and only holds the body back).
 * The timer is unref'd so a reply nobody waits for does not hold the test process open.
 */
export function replyAfter(ms: number, body: string, status = 200): () => Promise<[number, string]> {
  return async () => {
    await new Promise((r) => setTimeout(r, ms).unref());
    return [status, body];
  };
}
