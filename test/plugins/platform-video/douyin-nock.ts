// nock scopes for the Douyin upstream, built from the fixtures beside this file (Douyin's public answers).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';

const dir = join(import.meta.dirname, 'fixtures');

export const VIDEO_ID = '7345492945006595379';
export const IMAGE_ID = '7401234567890123456';
export const DELETED_ID = '7300000000000000001';

export function fixture(name: string): string {
  return readFileSync(join(dir, name), 'utf8');
}

interface Redirect {
  path: string;
  status: number;
  location: string;
  query?: Record<string, string>;
}

export const redirects = JSON.parse(fixture('redirects.json')) as Record<
  'short_link_video' | 'short_link_images' | 'short_link_xigua' | 'play_302',
  Redirect
>;

export const PLAY_CDN_URL = redirects.play_302.location;

// Every Douyin request must look like iPhone Safari: a desktop UA gets the anti-bot page.
const phone = { reqheaders: { 'user-agent': /iPhone/ } };

export const ies = (): nock.Scope => nock('https://www.iesdouyin.com', phone);

/** v.douyin.com answering one short link with its 302. */
export function shortLink(r: Redirect): nock.Scope {
  return nock('https://v.douyin.com', phone).get(r.path).reply(r.status, '', { Location: r.location });
}

/** slidesinfo for `id`: `first` answers the plain request, `retry` (if given) the request_source=200 one. */
export function slidesinfo(id: string, first: string, retry?: string): nock.Scope {
  const scope = ies()
    .get('/web/api/v2/aweme/slidesinfo/')
    .query((q) => q.aweme_ids === `[${id}]` && q.request_source === undefined)
    .reply(200, first, { 'Content-Type': 'application/json' });
  if (retry !== undefined) {
    scope
      .get('/web/api/v2/aweme/slidesinfo/')
      .query((q) => q.aweme_ids === `[${id}]` && q.request_source === '200')
      .reply(200, retry, { 'Content-Type': 'application/json' });
  }
  return scope;
}

export function sharePage(id: string, html: string): nock.Scope {
  return ies()
    .get(`/share/video/${id}`)
    .reply(200, html, { 'Content-Type': 'text/html; charset=utf-8', 'x-modernjs-render': 'server' });
}

/** The watermark-free play URL answering with the CDN mp4 address. */
export function play302(): nock.Scope {
  const r = redirects.play_302;
  return nock('https://aweme.snssdk.com', phone)
    .get(r.path)
    .query(r.query ?? {})
    .reply(r.status, '', { Location: r.location });
}
