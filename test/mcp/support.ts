// The MCP SDK's own client against the real app over real HTTP. It is given undici's fetch because nock (loaded by
// the test client helper) intercepts the global fetch and cannot clone the SDK's requests.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetch as undiciFetch } from 'undici';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

/** The shipped operations.yaml and plugins, with no courier provider configured (kuaid is then unavailable). */
export async function shippedApp(): Promise<TestApp> {
  for (const name of ['KUAIDI100_KEY', 'KUAIDI100_CUSTOMER', 'KDNIAO_BUSINESS_ID', 'KDNIAO_API_KEY'])
    delete process.env[name];
  return createTestApp({ operationsYaml: readFileSync('operations.yaml', 'utf8'), pluginDirs: [resolve('plugins')] });
}

export function mcpUrl(h: TestApp): URL {
  return new URL(`http://127.0.0.1:${h.client.port}/mcp`);
}

/** A connected SDK client (initialize + initialized done); `headers` go on every request. */
export async function connect(h: TestApp, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'tollgate-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(mcpUrl(h), {
    fetch: undiciFetch as unknown as typeof fetch,
    requestInit: { headers },
  });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST with the headers a conforming client sends. */
export function rpc(h: TestApp, body: unknown, headers: Record<string, string> = {}) {
  return h.client.request('/mcp', {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  });
}
