// Unit tests of share-text.ts over the four platforms' real share-text styles.
// Douyin is a stub with its public link hosts: these tests must not depend on the Douyin module's internals.
import t from 'tap';
import type { PlatformModule } from '../../../plugins/jiexi/platform.js';
import { bilibili } from '../../../plugins/jiexi/platforms/bilibili.js';
import { kuaishou } from '../../../plugins/jiexi/platforms/kuaishou.js';
import { xiaohongshu } from '../../../plugins/jiexi/platforms/xiaohongshu.js';
import { findSupportedLink, isIpLiteralHost, unsupportedMessage } from '../../../plugins/jiexi/share-text.js';

const douyinStub: PlatformModule = {
  id: 'douyin',
  label: '抖音',
  linkHosts: ['v.douyin.com', 'www.douyin.com', 'www.iesdouyin.com'],
  fetchHosts: [],
  refuseLink: () => null,
  parse: async () => ({ ok: false, code: 'UPSTREAM_FAILED', message: 'stub' }),
};
const modules = [douyinStub, kuaishou, xiaohongshu, bilibili];

function pick(text: string): { url: string; platform: string } | string {
  const r = findSupportedLink(text, modules);
  return r.ok ? { url: r.link.url, platform: r.link.module.id } : r.reason;
}

t.test('real share texts of the four platforms', async (t) => {
  t.same(
    pick('7.66 复制打开抖音，看看【小明的作品】海边日落 # 旅行 https://v.douyin.com/7PK95qKezLc/ Kjp:/ 03/01 W@m.Qk'),
    {
      url: 'https://v.douyin.com/7PK95qKezLc/',
      platform: 'douyin',
    },
  );
  t.same(
    pick(
      '45 阿海发布了一篇小红书笔记，快来看吧！ 😆 C4QcUbe3ImNZyv3 😆 http://xhslink.com/a/zGL52ubtpJ20，复制本条信息，打开【小红书】App查看精彩内容！',
    ),
    {
      url: 'http://xhslink.com/a/zGL52ubtpJ20',
      platform: 'xiaohongshu',
    },
  );
  t.same(pick('https://v.kuaishou.com/13x0B9e 海边日落 "#旅行 点击链接，打开【快手】直接观看！'), {
    url: 'https://v.kuaishou.com/13x0B9e',
    platform: 'kuaishou',
  });
  t.same(pick('【【日常】在山里住了一周-哔哩哔哩】 https://b23.tv/aB3dE5f'), {
    url: 'https://b23.tv/aB3dE5f',
    platform: 'bilibili',
  });
});

t.test('long links keep path and query, drop fragment and port, lower-case the host', async (t) => {
  t.same(
    pick('https://www.xiaohongshu.com/explore/6701a2b3c4d5e6f708192a3b?xsec_token=AB%3D&xsec_source=pc_feed#comments'),
    {
      url: 'https://www.xiaohongshu.com/explore/6701a2b3c4d5e6f708192a3b?xsec_token=AB%3D&xsec_source=pc_feed',
      platform: 'xiaohongshu',
    },
  );
  t.same(pick('HTTPS://WWW.BILIBILI.COM:443/video/BV1oM4y1G7LW'), {
    url: 'https://www.bilibili.com/video/BV1oM4y1G7LW',
    platform: 'bilibili',
  });
  t.same(pick('https://v.m.chenzhongtech.com/fw/photo/3xburnkmj3auazc?photoId=3xburnkmj3auazc'), {
    url: 'https://v.m.chenzhongtech.com/fw/photo/3xburnkmj3auazc?photoId=3xburnkmj3auazc',
    platform: 'kuaishou',
  });
});

t.test('trailing .,;) and CJK punctuation end the link', async (t) => {
  t.same(pick('快看（https://b23.tv/aB3dE5f）'), { url: 'https://b23.tv/aB3dE5f', platform: 'bilibili' });
  t.same(pick('see https://b23.tv/aB3dE5f).'), { url: 'https://b23.tv/aB3dE5f', platform: 'bilibili' });
  t.same(pick('链接:https://v.kuaishou.com/13x0B9e;'), { url: 'https://v.kuaishou.com/13x0B9e', platform: 'kuaishou' });
  t.same(pick('https://v.douyin.com/abc123/。复制此链接'), { url: 'https://v.douyin.com/abc123/', platform: 'douyin' });
});

t.test('the first SUPPORTED link wins; unsupported ones before it are skipped', async (t) => {
  t.same(pick('https://example.com/a 然后 https://b23.tv/aB3dE5f https://v.kuaishou.com/13x0B9e'), {
    url: 'https://b23.tv/aB3dE5f',
    platform: 'bilibili',
  });
  t.same(pick('http://127.0.0.1/x https://v.kuaishou.com/13x0B9e'), {
    url: 'https://v.kuaishou.com/13x0B9e',
    platform: 'kuaishou',
  });
});

t.test('no link / unsupported site / IP literal / user-info → a reason, no link', async (t) => {
  t.match(pick('复制打开抖音，看看【作品】'), /No http\(s\) link/);
  t.match(pick('https://www.youtube.com/watch?v=x'), /www\.youtube\.com are not supported/);
  t.match(pick('https://douyin.com.evil.example/x'), /not supported/);
  t.match(pick('https://evilv.douyin.com/x'), /not supported/, 'suffix match needs a dot boundary');
  for (const ip of [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://169.254.169.254/latest/meta-data',
  ]) {
    t.match(pick(ip), /IP addresses/, ip);
  }
  t.type(pick('http://[::1]/'), 'string');
  t.type(pick('http://[fd00:ec2::254]/'), 'string');
  t.type(pick('https://v.douyin.com@evil.example/x'), 'string', 'user-info is refused');
  t.type(pick('https://v.douyin.com:80@evil.example/x'), 'string');
  t.type(pick('https://evil.example\\@v.douyin.com/x'), 'string', 'backslash (WHATWG treats it as "/")');
  t.type(pick('https://v%2edouyin.com/x'), 'string', 'percent-encoded host');
});

t.test('isIpLiteralHost', async (t) => {
  for (const h of ['127.0.0.1', '2130706433', '0x7f000001', '10.0.0.010', '[::1]', '::1', '1.2.3.4.'])
    t.ok(isIpLiteralHost(h), h);
  for (const h of ['v.douyin.com', 'b23.tv', '1.m.chenzhongtech.com', 'x0.example']) t.notOk(isIpLiteralHost(h), h);
});

t.test('unsupportedMessage lists the platforms in Chinese and English', async (t) => {
  const msg = unsupportedMessage(modules, 'No http(s) link found in the text.');
  t.match(msg, /^目前支持: 抖音、快手、小红书、B站 \(supported: Douyin, Kuaishou, Xiaohongshu, Bilibili\)\. No http/);
});

t.test(
  'a platform link that cannot name a post is passed over for a later one, else reported as refused',
  async (t) => {
    t.same(pick('主页 https://www.kuaishou.com/profile/3xuser0001 作品 https://v.kuaishou.com/13x0B9e'), {
      url: 'https://v.kuaishou.com/13x0B9e',
      platform: 'kuaishou',
    });
    t.same(findSupportedLink('https://v.kuaishou.com/ https://example.com/x', modules), {
      ok: false,
      reason: 'a Kuaishou short link without its code',
      refused: 'a Kuaishou short link without its code',
    });
    t.same(findSupportedLink('https://example.com/x', modules), {
      ok: false,
      reason: 'Links of example.com are not supported.',
    });
  },
);
