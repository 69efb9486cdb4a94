// Shared by the edge tests: the gateway app behind the production server (createGatewayServer: timeouts, caps,
// clientError envelopes) and a raw-socket client for requests Node's own client refuses to send.

import { request } from 'node:http';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import nock from 'nock';
import type { Test } from 'tap';
import { createGatewayServer, listen } from '../../core/http/http-server.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test convenience: assertions read fields freely
  body: any;
}

function parse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  let text = raw.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let out = '';
    for (let rest = text; ; ) {
      const eol = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, eol), 16);
      if (!size) break;
      out += rest.slice(eol + 2, eol + 2 + size);
      rest = rest.slice(eol + 2 + size + 2);
    }
    text = out;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: Number(head[0]?.split(' ')[1]), headers, text, body };
}

/** The gateway app on the production server settings; returns its port. */
export async function serveGateway(h: TestApp, onClose: (fn: () => Promise<void>) => void): Promise<number> {
  nock.enableNetConnect((host) => host.startsWith('127.0.0.1'));
  const { server } = createGatewayServer(
    h.app.callback(),
    h.services.settings.edge,
    h.services.settings.trustProxy,
    h.services.logger,
  );
  const port = await listen(server, 0, '127.0.0.1');
  onClose(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return port;
}

/**
 * The set-up of an edge test file: no outbound network, the app with only the test plugins (the edge does not
 * depend on real providers) behind the production server, reconciled after each test. `ready` gets both.
 */
export function edgeSuite(t: Test, ready: (h: TestApp, port: number) => void): void {
  nock.disableNetConnect();
  let h: TestApp;
  t.before(async () => {
    h = await createTestApp({ pluginDirs: [resolve('test/fixtures/plugins')] });
    ready(h, await serveGateway(h, (fn) => t.teardown(fn)));
  });
  t.afterEach(() => h.assertReconciled());
  t.teardown(() => h.close());
}

/** Sends bytes as they are (the request should say Connection: close) and reads until the server closes. */
export function rawRequest(port: number, bytes: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(parse(Buffer.concat(chunks).toString('utf8'))));
    socket.write(bytes);
  });
}

/** A request with a body written in pieces (chunked when no content-length is given). */
export function streamedRequest(
  port: number,
  path: string,
  method: string,
  headers: Record<string, string>,
  pieces: Array<string | Buffer>,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: flat, text, body });
      });
    });
    req.on('error', reject);
    for (const p of pieces) req.write(p);
    req.end();
  });
}
