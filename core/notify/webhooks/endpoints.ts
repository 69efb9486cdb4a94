// Webhook endpoints: where a user's (or, with user_id null, the operator's) events are sent. The signing secret
// is returned once at creation, like an API key's. Targets must resolve to public addresses only, checked here
// for a clear error at creation and again at every connect by the pinned fetch (core/sandbox/pinned-fetch.ts).
import type { Kysely, Selectable } from 'kysely';
import { isForbiddenAddress, type Resolver } from '../../sandbox/address-policy.js';
import type { Database } from '../../store/schema.js';
import type { WebhookEndpointsTable, WebhookKind } from '../../store/schema-notifications.js';
import type { WebhookEvent } from './events.js';
import { newWebhookSecret } from './signing.js';

export type WebhookEndpoint = Selectable<WebhookEndpointsTable>;
export const WEBHOOK_KINDS = ['standard', 'wecom', 'dingtalk', 'feishu'] as const satisfies readonly WebhookKind[];
export const MAX_ENDPOINTS_PER_OWNER = 20;

export class WebhookTargetError extends Error {}

/** Refuses what the sandbox would refuse a plugin: non-HTTP schemes, credentials in the URL, private targets. */
export async function checkWebhookUrl(raw: string, resolver: Resolver): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError('The URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new WebhookTargetError('The URL must start with https:// or http://.');
  if (url.username || url.password) throw new WebhookTargetError('The URL must not contain a user name or password.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // One answer for "does not resolve" and "resolves to a private address": telling them apart would let any user
  // map the server network's internal names.
  const refused = new WebhookTargetError(
    `The host ${host.slice(0, 100)} is not a public address or does not resolve; webhooks go to public addresses only.`,
  );
  let addresses: string[];
  try {
    addresses = await resolver(host);
  } catch {
    throw refused;
  }
  if (addresses.length === 0 || addresses.some(isForbiddenAddress)) throw refused;
  return url;
}

export interface NewEndpoint {
  userId: number | null;
  url: string;
  kind: WebhookKind;
  events: WebhookEvent[];
  botSecret?: string | null;
}

export async function createEndpoint(
  db: Kysely<Database>,
  e: NewEndpoint,
  now = Date.now(),
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newWebhookSecret();
  const endpoint = await db
    .insertInto('webhook_endpoints')
    .values({
      user_id: e.userId,
      url: e.url,
      kind: e.kind,
      secret,
      bot_secret: e.botSecret ?? null,
      events: JSON.stringify(e.events),
      status: 'active',
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { endpoint, secret };
}

/** A user's endpoints, or the operator's (userId null). */
export async function listEndpoints(db: Kysely<Database>, userId: number | null): Promise<WebhookEndpoint[]> {
  const q = db.selectFrom('webhook_endpoints').selectAll().orderBy('id');
  return (userId === null ? q.where('user_id', 'is', null) : q.where('user_id', '=', userId)).execute();
}

export async function findEndpoint(
  db: Kysely<Database>,
  userId: number | null,
  id: number,
): Promise<WebhookEndpoint | undefined> {
  const q = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  return (userId === null ? q.where('user_id', 'is', null) : q.where('user_id', '=', userId)).executeTakeFirst();
}

export async function setEndpointStatus(
  db: Kysely<Database>,
  id: number,
  status: 'active' | 'disabled',
): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ status }).where('id', '=', id).execute();
}

/** Deleting drops pending deliveries too: nobody could see or replay them any more. */
export async function deleteEndpoint(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  });
}

export function endpointEvents(e: WebhookEndpoint): string[] {
  return JSON.parse(e.events) as string[];
}
