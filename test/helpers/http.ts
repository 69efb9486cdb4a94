// In-process HTTP against app.callback() on an ephemeral loopback port (nock lets loopback through).
import { createServer, request as httpRequest, type Server } from 'node:http';
import type Koa from 'koa';
import nock from 'nock';

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: test convenience: assertions read fields freely
  body: any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Object -> JSON body; string -> sent as is (set content-type yourself). */
  body?: unknown;
}

export interface TestClient {
  request(path: string, opts?: RequestOptions): Promise<TestResponse>;
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  port: number;
  close(): Promise<void>;
}

export async function startClient(app: Koa): Promise<TestClient> {
  nock.enableNetConnect((host) => host.startsWith('127.0.0.1') || host.startsWith('localhost'));
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const request = (path: string, opts: RequestOptions = {}): Promise<TestResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...opts.headers };
      let payload: string | undefined;
      if (opts.body !== undefined) {
        payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
        if (typeof opts.body !== 'string') headers['content-type'] ??= 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
      }
      const req = httpRequest(
        { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown;
            try {
              body = JSON.parse(text);
            } catch {
              body = undefined;
            }
            const flat: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
            resolve({ status: res.statusCode ?? 0, headers: flat, text, body });
          });
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  return {
    port,
    request,
    get: (path, headers) => request(path, { headers }),
    post: (path, body, headers) => request(path, { method: 'POST', body, headers }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
