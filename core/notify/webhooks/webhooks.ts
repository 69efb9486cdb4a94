// The webhook service in Services: `emit` queues an event (any module may call it, e.g. payments on order.paid),
// and a worker in every process sends due deliveries. Time comes from an injectable clock so tests can walk
// through the retry schedule; the fetch is the SSRF-pinned one in production.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from '../../kernel/logger.js';
import type { Resolver } from '../../sandbox/address-policy.js';
import type { Database } from '../../store/schema.js';
import { botAccepted, botRequest } from './bot-bodies.js';
import { checkWebhookUrl } from './endpoints.js';
import { eventText, type WebhookEvent } from './events.js';
import { type AttemptResult, claimDue, enqueueEvent, recordAttempt, type WebhookDelivery } from './queue.js';
import { standardHeaders } from './signing.js';

export interface Webhooks {
  /** Queue an event for the user's endpoints (and the operator's); userId null: operator endpoints only. */
  emit(event: WebhookEvent, data: Record<string, unknown>, userId?: number | null): Promise<number>;
  /** Send what is due now; returns how many attempts were made. */
  tick(): Promise<number>;
  /** Poll every `everyMs`; returns a stop function. */
  start(everyMs?: number): () => void;
  checkUrl(url: string): Promise<URL>;
  readonly owner: string;
}

export interface WebhookOptions {
  db: Kysely<Database>;
  logger: Logger;
  fetch: typeof fetch;
  resolver: Resolver;
  clock?: () => number;
  timeoutMs?: number;
}

const MAX_RESPONSE_CHARS = 2_000;

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length >= MAX_RESPONSE_CHARS) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return text.slice(0, MAX_RESPONSE_CHARS);
}

export function createWebhooks(o: WebhookOptions): Webhooks {
  const clock = o.clock ?? Date.now;
  const owner = `wh_${randomBytes(6).toString('hex')}`;
  const timeoutMs = o.timeoutMs ?? 10_000;
  let running: Promise<number> | null = null;

  async function attempt(d: WebhookDelivery): Promise<AttemptResult> {
    const ep = await o.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', Number(d.endpoint_id))
      .executeTakeFirst();
    if (ep?.status !== 'active') return { ok: false, status: null, error: 'endpoint disabled or deleted' };
    const now = clock();
    let url = ep.url;
    let body = d.payload;
    let headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Tollgate-Webhooks/1' };
    if (ep.kind === 'standard') {
      headers = { ...headers, ...standardHeaders(ep.secret, d.message_id, Math.floor(now / 1000), body) };
    } else {
      const parsed = JSON.parse(d.payload) as { type: WebhookEvent; data: Record<string, unknown> };
      ({ url, body } = botRequest(ep.kind, ep.url, eventText(parsed.type, parsed.data), ep.bot_secret, now));
    }
    try {
      // Redirects are not followed: a 3xx is a failed attempt (Standard Webhooks), and no hop escapes the checks.
      const res = await o.fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await readCapped(res);
      const ok = res.status >= 200 && res.status < 300 && (ep.kind === 'standard' || botAccepted(ep.kind, text));
      return { ok, status: res.status, error: ok ? null : `HTTP ${res.status}: ${text.slice(0, 200)}` };
    } catch (err) {
      const e = err as Error & { cause?: Error & { code?: string } };
      const detail = e.cause?.message ?? e.message;
      // The connect-time check refused the address, or the name did not resolve: the owner gets the same words as
      // at creation, the resolved (internal) address stays in the operator's log.
      const code = e.cause?.code;
      if (code === 'EFORBIDDEN' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
        return { ok: false, status: null, error: 'The host is not a public address or does not resolve.', detail };
      return { ok: false, status: null, error: detail };
    }
  }

  async function sendDue(): Promise<number> {
    const due = await claimDue(o.db, owner, clock());
    // In parallel: every attempt ends within timeoutMs, well inside the lease, so no row is sent twice.
    await Promise.all(
      due.map(async (d) => {
        const r = await attempt(d);
        await recordAttempt(o.db, d, owner, r, clock());
        if (!r.ok)
          o.logger.warn('webhook attempt failed', {
            delivery: Number(d.id),
            event: d.event,
            attempt: Number(d.attempts) + 1,
            reason: r.detail ?? r.error,
          });
      }),
    );
    return due.length;
  }

  return {
    owner,
    emit: (event, data, userId = null) => enqueueEvent(o.db, event, data, userId, clock()),
    tick() {
      // One sweep at a time per process; a caller during a sweep waits for it.
      running ??= sendDue().finally(() => (running = null));
      return running;
    },
    start(everyMs = 2_000) {
      const timer = setInterval(() => {
        this.tick().catch((e: Error) => o.logger.error('webhook worker failed', { reason: e.message }));
      }, everyMs);
      timer.unref();
      return () => clearInterval(timer);
    },
    checkUrl: (url) => checkWebhookUrl(url, o.resolver),
  };
}
