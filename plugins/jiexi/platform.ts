// One module per video platform. Adding a fifth platform = one module implementing PlatformModule,
// one line in platforms/index.ts, and its hosts in plugin.json allow_hosts.
import type { Host, PluginOutcome } from '../../core/sandbox/contract.js';
import type { UrlParts } from '../_lib/url-lite.js';

export type PlatformId = 'douyin' | 'kuaishou' | 'xiaohongshu' | 'bilibili';

export interface JiexiAuthor {
  id: string | null;
  name: string | null;
  avatar: string | null;
}

export interface JiexiMusic {
  title: string | null;
  author: string | null;
  url: string | null;
}

/** One image of an image post, in the order of `images`. */
export interface JiexiImage {
  /** Watermark-free original. */
  url: string;
  /** The motion clip when the image is a Live Photo, else null. */
  live_photo_url: string | null;
  width: number | null;
  height: number | null;
}

/** The normalised result of /api/jiexi. */
export interface JiexiData {
  platform: PlatformId;
  id: string;
  type: 'video' | 'images';
  title: string;
  cover: string | null;
  /** Watermark-free video address; null for image posts. */
  url: string | null;
  images: string[];
  author: JiexiAuthor;
  /** Seconds, when the platform says. */
  duration: number | null;
  music: JiexiMusic | null;
  /** Same images as `images`, with Live Photo clips and sizes (added in 0.2; `images` stays a string list). */
  image_items: JiexiImage[];
  /**
   * true when the platform offers this video only with a watermark: `url` is then null (a watermarked stream is
   * never sold as `url`) and `watermark_url` holds it. false otherwise.
   */
  watermark: boolean;
  watermark_url: string | null;
  /** Why something is missing or degraded, in Chinese and English; null when nothing needs saying. */
  note: string | null;
}

/** The fields added in 0.2 with their "nothing to report" values, for modules that have nothing to add. */
export function noExtras(): Pick<JiexiData, 'image_items' | 'watermark' | 'watermark_url' | 'note'> {
  return { image_items: [], watermark: false, watermark_url: null, note: null };
}

/** Caller choices that reach the modules. */
export interface ParseOptions {
  /**
   * Image format the caller wants. Only Xiaohongshu converts (ci.xiaohongshu.com ?imageView2/format/…); other
   * platforms hand out their files as they are. null = the original file.
   */
  imageFormat: 'png' | 'jpg' | null;
}

export interface PlatformModule {
  id: PlatformId;
  /** Chinese display name, used in the UNSUPPORTED message ("目前支持: 抖音、快手、小红书、B站"). */
  label: string;
  /** Host names whose links this module parses (exact names or "*.domain" patterns). Share links and long links. */
  linkHosts: string[];
  /** Every host the module fetches (must also be in plugins/jiexi/plugin.json allow_hosts). */
  fetchHosts: string[];
  /**
   * Why a link on one of `linkHosts` cannot name a post (a bare short-link host, a short-link path without a
   * code, a profile page), else null. Checked before `parse`: such a link is INVALID_INPUT and never fetched.
   */
  refuseLink(parts: UrlParts): string | null;
  parse(url: string, host: Host, options: ParseOptions): Promise<PluginOutcome<JiexiData>>;
}

/** The INVALID_INPUT message for a link that cannot name a post; `why` names the link form (English). */
export function noPostMessage(why: string): string {
  return `链接没有指向具体作品，请粘贴作品的分享链接 (the link does not name a post: ${why}; paste the post's share link).`;
}
