import nock from 'nock';
import t from 'tap';
import { plugin } from '../../../plugins/jiexi/handler.js';
import { platforms } from '../../../plugins/jiexi/platforms/index.js';
import { createDirectHost } from '../../helpers/direct-host.js';
import { runJiexi } from './_helpers.js';

nock.disableNetConnect();

t.test('registry lists the four platforms in order', async (t) => {
  t.same(
    platforms.map((p) => p.id),
    ['douyin', 'kuaishou', 'xiaohongshu', 'bilibili'],
  );
});

t.test('empty or non-string input → INVALID_INPUT', async (t) => {
  const host = createDirectHost({ plugin: 'jiexi' });
  t.teardown(() => host.dispose());
  const empty = {
    ok: false,
    code: 'INVALID_INPUT',
    message: 'url must be a non-empty string.',
    message_zh: 'url 不能为空',
  };
  t.strictSame(await plugin.run({ url: '   ' }, host), empty);
  t.strictSame(await plugin.run({ url: 42 as unknown as string }, host), empty);
  t.strictSame(await plugin.run({ url: 'https://b23.tv/abc', image_format: 'gif' as 'png' }, host), {
    ok: false,
    code: 'INVALID_INPUT',
    message: 'image_format must be "png" or "jpg".',
    message_zh: 'image_format 只能是 "png" 或 "jpg"',
  });
});

t.test('text without a link → UNSUPPORTED naming the supported platforms', async (t) => {
  const { outcome } = await runJiexi('7.66 复制打开抖音，看看【作品】');
  t.same(outcome, {
    ok: false,
    code: 'UNSUPPORTED',
    message: 'Supported: Douyin, Kuaishou, Xiaohongshu, Bilibili. No http(s) link found in the text.',
    message_zh: '目前支持: 抖音、快手、小红书、B站',
  });
});

t.test('fetch rejections map to UPSTREAM_TIMEOUT / UPSTREAM_FAILED, never throw', async (t) => {
  const host = createDirectHost({ plugin: 'jiexi' });
  t.teardown(() => host.dispose());
  host.fetch = async () => {
    throw new Error('fetch timed out: b23.tv did not answer in time');
  };
  t.strictSame(await plugin.run({ url: 'https://b23.tv/aB3dE5f' }, host), {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'Bilibili b23.tv short link request timed out, please retry later',
    message_zh: 'B站短链接请求超时，请稍后重试',
    detail: 'fetch timed out: b23.tv did not answer in time',
  });
  host.fetch = async () => {
    throw new TypeError('boom');
  };
  t.strictSame(await plugin.run({ url: 'https://b23.tv/aB3dE5f' }, host), {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili b23.tv short link request failed, please retry later',
    message_zh: 'B站短链接请求失败，请稍后重试',
    detail: 'boom',
  });
});
