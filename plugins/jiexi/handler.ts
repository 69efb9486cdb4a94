// jiexi: a pasted share link or share text → watermark-free media of Douyin, Kuaishou, Xiaohongshu or
// Bilibili. The handler only picks the link and the platform; each platform module owns its protocol.
import type { Host, OperationPlugin, PluginOutcome } from '../../core/sandbox/contract.js';
import { type JiexiData, noPostMessage } from './platform.js';
import { platforms } from './platforms/index.js';
import { findSupportedLink, unsupportedMessage } from './share-text.js';
import { fail, fetchFailure } from './upstream.js';

export interface JiexiInput {
  url: string;
  /** Xiaohongshu images converted to this format; omitted = the original files. */
  image_format?: 'png' | 'jpg';
}

const IMAGE_FORMATS = ['png', 'jpg'];

async function run(input: JiexiInput, host: Host): Promise<PluginOutcome<JiexiData>> {
  if (typeof input?.url !== 'string' || input.url.trim() === '')
    return fail('INVALID_INPUT', 'url must be a non-empty string.', 'url 不能为空');
  const format = input.image_format ?? null;
  if (format !== null && !IMAGE_FORMATS.includes(format))
    return fail('INVALID_INPUT', 'image_format must be "png" or "jpg".', 'image_format 只能是 "png" 或 "jpg"');
  const found = findSupportedLink(input.url, platforms);
  // Nothing is fetched for an unsupported or IP link: only a module's own hosts are ever contacted. A platform
  // link that cannot name a post (bare short-link host, profile page) is the caller's mistake: INVALID_INPUT,
  // refused before any request goes out, so it costs nothing and no upstream sees it.
  if (!found.ok && found.refused) return fail('INVALID_INPUT', noPostMessage(found.refused));
  if (!found.ok) return fail('UNSUPPORTED', unsupportedMessage(platforms, found.reason));
  const { module, url } = found.link;
  try {
    return await module.parse(url, host, { imageFormat: format });
  } catch (err) {
    // Modules map fetch rejections themselves; this catches a host.fetch rejection they let through and any
    // bug tripped by an unexpected upstream shape, so the caller still gets a code naming the platform.
    return fetchFailure(err, { en: `${module.id.charAt(0).toUpperCase()}${module.id.slice(1)}`, zh: module.label });
  }
}

export const plugin: OperationPlugin<JiexiInput, JiexiData> = { run };
