// Link handling without the network: URL splitting, share-text extraction, aweme ids, and the manifest.

import { readFileSync } from 'node:fs';
import t from 'tap';
import type { PluginManifest } from '../../../core/sandbox/contract.js';
import { DOUYIN_FETCH_HOSTS } from '../../../plugins/_lib/douyin/index.js';
import { awemeIdFromParts } from '../../../plugins/_lib/douyin/links.js';
import { extractUrls, parseUrl, queryParam, resolveLocation } from '../../../plugins/_lib/url-lite.js';
import { pickDouyinLink } from '../../../plugins/platform-video/handler.js';

t.test('parseUrl', async (t) => {
  t.strictSame(parseUrl('https://WWW.Douyin.com./video/123?x=1#frag'), {
    scheme: 'https',
    host: 'www.douyin.com',
    path: '/video/123',
    query: 'x=1',
  });
  t.strictSame(parseUrl('http://v.douyin.com:8080'), { scheme: 'http', host: 'v.douyin.com', path: '/', query: '' });
  for (const bad of [
    'ftp://a.com/',
    '/relative',
    'https://a@b.com/',
    'https://v.douyin.com@evil.example/',
    'https://a b.com/',
  ]) {
    t.equal(parseUrl(bad), null, bad);
  }
});

t.test('queryParam and resolveLocation', async (t) => {
  t.equal(queryParam('a=1&modal_id=7345492945006595379&b', 'modal_id'), '7345492945006595379');
  t.equal(queryParam('aweme_ids=%5B1%5D', 'aweme_ids'), '[1]');
  t.equal(queryParam('x=%E0%A4%A', 'x'), '%E0%A4%A', 'broken escapes are kept raw');
  t.equal(queryParam('a=1', 'b'), null);
  const base = { scheme: 'https' as const, host: 'v.douyin.com', path: '/abc/', query: '' };
  t.equal(resolveLocation('/share/video/1/', base), 'https://v.douyin.com/share/video/1/');
  t.equal(resolveLocation('//www.iesdouyin.com/x', base), 'https://www.iesdouyin.com/x');
  t.equal(resolveLocation('https://www.ixigua.com/1', base), 'https://www.ixigua.com/1');
});

t.test('extractUrls stops at whitespace and non-ASCII, strips trailing .,;)', async (t) => {
  t.strictSame(
    extractUrls(
      '7.87 Pjm:/ 复制打开抖音，看看【作者的作品】标题… https://v.douyin.com/7PK95qKezLc/ Kjp:/ 03/01 W@m.Qk',
    ),
    ['https://v.douyin.com/7PK95qKezLc/'],
  );
  t.strictSame(extractUrls('看https://v.douyin.com/abc/，复制'), ['https://v.douyin.com/abc/']);
  t.strictSame(extractUrls('(see https://www.douyin.com/video/7345492945006595379).'), [
    'https://www.douyin.com/video/7345492945006595379',
  ]);
  t.strictSame(extractUrls('a http://x.com/1; b https://y.com/2,'), ['http://x.com/1', 'https://y.com/2']);
  t.strictSame(extractUrls('no link here'), []);
});

t.test('pickDouyinLink takes the first Douyin link, skipping others', async (t) => {
  t.strictSame(pickDouyinLink('https://v.kuaishou.com/13x0B9e then https://v.douyin.com/7PK95qKezLc/'), {
    ok: true,
    link: 'https://v.douyin.com/7PK95qKezLc/',
  });
});

t.test('aweme ids from long links', async (t) => {
  const id = '7345492945006595379';
  const cases: Array<[string, string | null]> = [
    [`https://www.iesdouyin.com/share/video/${id}/?region=CN`, id],
    [`https://www.iesdouyin.com/share/note/${id}/`, id],
    [`https://www.iesdouyin.com/share/slides/${id}/`, id],
    [`https://www.douyin.com/video/${id}`, id],
    [`https://www.douyin.com/note/${id}`, id],
    [`https://www.douyin.com/jingxuan?modal_id=${id}`, id],
    [`https://www.douyin.com/video/${id}?modal_id=1234567890`, '1234567890'],
    ['https://www.douyin.com/video/123456789', null],
    [`https://www.douyin.com/video/${id}0000000000000000`, null],
    ['https://www.douyin.com/user/MS4wLjABAAAA', null],
  ];
  for (const [url, want] of cases) {
    const parts = parseUrl(url);
    t.equal(parts && awemeIdFromParts(parts), want, url);
  }
});

t.test('plugin.json', async (t) => {
  const m = JSON.parse(readFileSync('plugins/platform-video/plugin.json', 'utf8')) as PluginManifest;
  t.equal(m.name, 'platform-video');
  t.equal(m.timeout_ms, 10000);
  t.equal(m.memory_mb, 64);
  t.strictSame(
    [...m.allow_hosts].sort(),
    [...DOUYIN_FETCH_HOSTS].sort(),
    'allow_hosts are exactly the Douyin fetch hosts',
  );
});
