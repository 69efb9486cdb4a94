// Shared pieces of the payment tests: a test app with a PAYMENTS_FILE, a local fake provider server (tests
// never touch the internet), and shortcuts for orders.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { type PaymentSettings, readPaymentSettings } from '../../../core/config/payment-env.js';
import { consoleUser } from '../../console/support.js';
import { createTestApp, type TestApp } from '../../helpers/create-test-app.js';

export const PUBLIC_BASE = 'https://pay.tollgate.test';

export async function paymentsApp(
  instances: Array<Record<string, unknown>>,
  extra: Partial<PaymentSettings> = {},
): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-pay-'));
  const file = join(dir, 'payments.yaml');
  writeFileSync(file, stringify({ payments: instances }));
  const payments: PaymentSettings = {
    ...readPaymentSettings({}),
    paymentsFile: file,
    publicBaseUrl: PUBLIC_BASE,
    sweepSeconds: 0,
    ...extra,
  };
  return createTestApp({ settings: { payments } });
}

export interface FakeServer {
  url: string;
  port: number;
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>;
  handler: (
    req: { method: string; path: string; headers: IncomingMessage['headers']; body: string },
    res: ServerResponse,
  ) => void;
  close(): Promise<void>;
}

/** A loopback HTTP server whose answers the test sets through `handler`. */
export async function fakeServer(): Promise<FakeServer> {
  const fake: FakeServer = {
    url: '',
    port: 0,
    requests: [],
    handler: (_req, res) => {
      res.statusCode = 500;
      res.end('no handler');
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      fake.requests.push(r);
      fake.handler(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.port = (server.address() as { port: number }).port;
  fake.url = `http://127.0.0.1:${fake.port}`;
  return fake;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

export async function buyer(h: TestApp) {
  return consoleUser(h, 0);
}

export function orderRow(h: TestApp, id: number) {
  return h.services.store.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export function paymentLog(h: TestApp, orderId?: number) {
  let q = h.services.store.db.selectFrom('payment_log').selectAll().orderBy('id');
  if (orderId !== undefined) q = q.where('order_id', '=', orderId);
  return q.execute();
}

export const outTradeNo = (id: number): string => `TG${String(id).padStart(10, '0')}`;
