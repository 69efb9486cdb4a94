// HTTPS_PROXY: with a proxy configured, every plugin fetch is tunnelled through it (CONNECT), and the
// allow-list still applies before anything leaves. A local CONNECT proxy stands in for the operator's.

import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import t from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { createSandbox } from '../../core/sandbox/sandbox.js';
import { FIXTURES, fakeResolver, req } from './helpers.js';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

t.test('plugin fetches go through the configured proxy', async (t) => {
  // The "upstream": a plain HTTP server the proxy tunnels to, whatever host name was asked for.
  const upstream = createHttpServer((request, response) => {
    response.setHeader('content-type', 'text/plain');
    response.end(`via proxy: ${request.headers.host} ${request.url}`);
  });
  const upstreamPort = await listen(upstream);
  const tunnels: string[] = [];
  const proxy = createHttpServer();
  proxy.on('connect', (request, client, head) => {
    tunnels.push(request.url ?? '');
    const target = connect(upstreamPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    target.on('error', () => client.destroy());
  });
  const proxyPort = await listen(proxy);
  const sb = await createSandbox({
    pluginDirs: [FIXTURES],
    logger: createMemoryLogger(),
    poolSize: 1,
    resolver: fakeResolver(),
    httpsProxy: `http://127.0.0.1:${proxyPort}`,
  });
  t.teardown(async () => {
    await sb.close();
    upstream.close();
    proxy.close();
  });

  const { outcome } = await sb.run(req('echo', { fetch: 'http://api.fixture.test/hello?x=1' }));
  t.match(outcome, { ok: true, data: { fetched: { status: 200, body: 'via proxy: api.fixture.test /hello?x=1' } } });
  t.same(tunnels, ['api.fixture.test:80'], 'one CONNECT tunnel to the upstream host');

  const refused = await sb.run(req('echo', { fetch: 'http://evil.example.org/' }));
  t.match(refused.outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'echo: the upstream request failed, please retry later',
    detail: /evil\.example\.org is not on the allow-list/,
  });
  t.equal(tunnels.length, 1, 'a host off the allow-list never reaches the proxy');
});
