// A webhook receiver on a loopback port that records every request and answers from a script, and a webhook
// service wired to it with a hand-driven clock (production checks addresses; the test host name is rewritten
// to the receiver's loopback address only inside the test's fetch).
import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
// undici's own fetch, as production's pinned fetch uses: nock's global-fetch interceptor breaks loopback POSTs.
import { fetch as undiciFetch } from 'undici';
import { type BalanceAlerts, createBalanceAlerts, type SendMail } from '../../core/notify/alerts/balance-alerts.js';
import { createWebhooks, type Webhooks } from '../../core/notify/webhooks/webhooks.js';
import type { TestApp } from '../helpers/create-test-app.js';

export interface Received {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  port: number;
  received: Received[];
  /** Status (and body) of the next answers, in order; afterwards 200 with `fallbackBody`. */
  script: Array<{ status: number; body?: string }>;
  fallbackBody: string;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const r: Omit<Receiver, 'port' | 'close'> = { received: [], script: [], fallbackBody: 'ok' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      r.received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const next = r.script.shift() ?? { status: 200, body: r.fallbackBody };
      res.writeHead(next.status, { 'content-type': 'application/json' });
      res.end(next.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return Object.assign(r, { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}

export const HOOK_HOST = 'hooks.example.com';
/** Names that resolve to private addresses, for the SSRF checks. */
export const TEST_DNS: Record<string, string[]> = {
  'intranet.example.com': ['10.0.0.5'],
  'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
};

export interface Clock {
  now: number;
  (): number;
}

export function manualClock(start = Date.UTC(2030, 0, 1)): Clock {
  const c = (() => c.now) as Clock;
  c.now = start;
  return c;
}

/** Webhooks (and alerts using them) of `h`, sending to the receiver; `h.services` is switched over to them. */
/** The test's fetch: the webhook host name goes to the loopback receiver. */
export function receiverFetch(receiver: Receiver): typeof fetch {
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.hostname === HOOK_HOST) {
      url.hostname = '127.0.0.1';
      url.port = String(receiver.port);
    }
    return undiciFetch(url, init as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>;
  }) as typeof fetch;
}

export function wireWebhooks(
  h: TestApp,
  receiver: Receiver,
  clock: Clock,
  sendMail?: SendMail,
): { webhooks: Webhooks; alerts: BalanceAlerts } {
  const s = h.services;
  const webhooks = createWebhooks({
    db: s.store.db,
    logger: s.logger,
    fetch: receiverFetch(receiver),
    resolver: async (host) => {
      if (host.endsWith('.invalid'))
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return isIP(host) ? [host] : (TEST_DNS[host] ?? ['93.184.216.34']);
    },
    clock,
  });
  const alerts = createBalanceAlerts({ db: s.store.db, logger: s.logger, webhooks, sendMail, clock });
  s.webhooks = webhooks;
  s.alerts = alerts;
  return { webhooks, alerts };
}
