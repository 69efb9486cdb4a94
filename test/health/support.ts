// Shared by the canary tests: the real operations.yaml in a test app, an admin to mail, an operator webhook
// endpoint for the operation.* events, and nock replies for the Xiaohongshu and Bilibili samples of jiexi (the
// links of operations.yaml; the recorded pages are of other posts, so their ids are rewritten to the samples').
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { addOperator } from '../helpers/operator.js';
import { fixture } from '../plugins/jiexi/_helpers.js';

export const XHS = 'https://www.xiaohongshu.com';
/** The Xiaohongshu canary sample of operations.yaml: a note page link with its xsec_token. */
export const NOTE_ID = '691e68a8000000001e02bcda';
export const XHS_SAMPLE = `${XHS}/discovery/item/${NOTE_ID}?source=webshare&xhsshare=pc_web&xsec_token=CBunzr4Cq8N7jbcXqpWDxGn11k7XwVIJ59KOvkRS_Qabw=&xsec_source=pc_share`;
export const XHS_VIDEO = fixture('xhs-video.html').replaceAll('66b1c2d3000000001203e4f5', NOTE_ID);

/** The default config, with jiexi's deadline shortened so a timeout test does not wait 10 s. */
export async function canaryApp(settings: Record<string, unknown> = {}): Promise<TestApp> {
  const yaml = readFileSync('operations.yaml', 'utf8').replace(/(code: jiexi[\s\S]*?timeout_ms: )10000/, '$11500');
  const h = await createTestApp({ operationsYaml: yaml, pluginDirs: [resolve('plugins')], settings });
  await addOperator(h, `ops-${Date.now()}@example.com`, [
    'operation.degraded',
    'operation.down',
    'operation.recovered',
  ]);
  return h;
}

/** The canary's note page answers `status` with `body`. */
export function xhsNote(status: number, body: string | (() => Promise<[number, string]>)): void {
  const page = nock(XHS).get(`/discovery/item/${NOTE_ID}`).query(true);
  if (typeof body === 'function') page.reply(body);
  else page.reply(status, body);
}

/** The Bilibili canary sample of operations.yaml (www.bilibili.com/video/<BV>): no short link to resolve. */
const BV = 'BV13x41117TL';
export function biliGood(): void {
  const api = nock('https://api.bilibili.com');
  const view = fixture('bili-view.json').replaceAll('BV1oM4y1G7LW', BV);
  api.get('/x/web-interface/view').query({ bvid: BV }).reply(200, view);
  api.get('/x/player/playurl').query(true).reply(200, fixture('bili-playurl.json'));
}

export async function webhookEvents(h: TestApp): Promise<Array<{ event: string; data: Record<string, unknown> }>> {
  const rows = await h.services.store.db
    .selectFrom('webhook_deliveries')
    .select(['event', 'payload'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ event: r.event, data: (JSON.parse(r.payload) as { data: Record<string, unknown> }).data }));
}

export async function mails(h: TestApp): Promise<string[]> {
  const rows = await h.services.store.db.selectFrom('mail_outbox').select('subject').orderBy('id').execute();
  return rows.map((r) => r.subject);
}
