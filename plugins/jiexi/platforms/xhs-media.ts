// Xiaohongshu media addresses: which video stream to hand out and how to get an image's original file.
// Facts (XHS-Downloader image.py/video.py, danbooru's xiaohongshu URL rules):
// - Video: `video.consumer.originVideoKey` is the uploaded file, served at https://sns-video-bd.xhscdn.com/<key>.
//   The transcodes live in `video.media.stream.{h264,h265,av1,h266}[]` as {streamType, streamDesc, qualityType,
//   masterUrl, backupUrls, width, height, videoBitrate, avgBitrate}. The web player's h264 entry is the
//   watermarked one ("WM_X264_MP4…", the marker may sit in streamDesc, qualityType or the URL); h265
//   "X265_MP4_WEB_*" and av1 entries are clean.
// - Images: urlDefault/urlPre are web renditions http://sns-webpic-qc.xhscdn.com/<12-digit time>/<32 hex>/<token>!nd_…
//   The token (which may start with spectrum/ or notes_pre_post/) names the original file on
//   sns-img-bd.xhscdn.com and ci.xiaohongshu.com. Live Photo images carry their clip in `stream`.
import { arr, at, type JsonRecord, num, rec, str } from '../../_lib/pick.js';
import { parseUrl } from '../../_lib/url-lite.js';
import type { JiexiImage } from '../platform.js';

export const ORIGIN_VIDEO_HOST = 'https://sns-video-bd.xhscdn.com/';
export const ORIGIN_IMAGE_HOST = 'https://sns-img-bd.xhscdn.com/';
export const CI_IMAGE_HOST = 'https://ci.xiaohongshu.com/';

/** Codec groups in the order that breaks quality ties: h264 last, it is the family the watermark is burnt into. */
const CLEAN_FIRST = ['h265', 'av1', 'h266', 'h264'] as const;

export interface VideoChoice {
  /** Watermark-free address, or null when the note offers only watermarked streams. */
  url: string | null;
  /** The watermarked stream, only when it is all there is. */
  watermarkUrl: string | null;
}

/** Does a stream entry carry the watermark marker in any of the places XHS puts it? */
export function isWatermarked(stream: JsonRecord): boolean {
  const fields = [stream.streamDesc, stream.qualityType, stream.masterUrl, stream.stream_desc, stream.master_url];
  return fields.some((f) => typeof f === 'string' && /(?:^|[^A-Za-z])WM_/i.test(f));
}

function streamUrl(stream: JsonRecord): string | null {
  return str(stream.masterUrl) ?? str(at(stream, 'backupUrls', 0));
}

/** Height first (what people mean by quality), then bitrate, then size. */
function qualityKey(stream: JsonRecord): number[] {
  const h = num(stream.height) ?? 0;
  const w = num(stream.width) ?? 0;
  return [Math.min(h, w) || h || w, num(stream.videoBitrate) ?? num(stream.avgBitrate) ?? 0, num(stream.size) ?? 0];
}

function compareQuality(a: JsonRecord, b: JsonRecord): number {
  const ka = qualityKey(a);
  const kb = qualityKey(b);
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return kb[i] - ka[i];
  return 0;
}

/** Streams of a `stream` object, best quality first; equal quality goes by codec (h265, av1, h266, h264). */
function streamsOf(stream: unknown): JsonRecord[] {
  const all = CLEAN_FIRST.flatMap((codec) =>
    arr(at(stream, codec))
      .map(rec)
      .filter((s): s is JsonRecord => s !== null && streamUrl(s) !== null),
  );
  // Array.prototype.sort is stable, so the codec order above breaks ties.
  return all.sort(compareQuality);
}

/** Picks a clean stream from a `stream` object ({h264, h265, av1, …}); a WM_ stream is never `url`. */
export function pickStream(stream: unknown): VideoChoice {
  const all = streamsOf(stream);
  const clean = all.find((s) => !isWatermarked(s));
  if (clean) return { url: streamUrl(clean), watermarkUrl: null };
  const marked = all[0];
  return { url: null, watermarkUrl: marked ? streamUrl(marked) : null };
}

/** The video of a note: the original upload, else the best clean transcode. */
export function pickVideo(video: unknown): VideoChoice {
  const key = str(at(video, 'consumer', 'originVideoKey'));
  if (key) return { url: `${ORIGIN_VIDEO_HOST}${key.replace(/^\/+/, '')}`, watermarkUrl: null };
  return pickStream(at(video, 'media', 'stream'));
}

/**
 * The file token of an XHS image URL: the path without the `<time>/<hash>/` prefix of web renditions, without
 * the `!style` suffix and the query. Null for a URL that is not an XHS image address.
 */
export function imageToken(url: string): string | null {
  const parts = parseUrl(url);
  if (!parts) return null;
  const isXhsHost =
    /(?:^|\.)(?:xhscdn\.com|xhscdn\.net|rednotecdn\.com)$/.test(parts.host) || parts.host === 'ci.xiaohongshu.com';
  if (!isXhsHost) return null;
  let path = parts.path.replace(/^\/+/, '').split('!')[0];
  // Web renditions: /202608011200/7d0b1c…/<token>. The hash is 32 hex in the wild; fixtures may be shorter.
  path = path.replace(/^\d{12}\/[0-9a-fA-F]+\//, '');
  return /^[A-Za-z0-9_./-]+$/.test(path) && !path.includes('..') ? path : null;
}

/** The original image (sns-img-bd, the file as uploaded); the rendition URL itself when no token is found. */
export function originalImageUrl(url: string): string {
  const token = imageToken(url);
  return token ? `${ORIGIN_IMAGE_HOST}${token}` : url;
}

/** The same original converted by ci.xiaohongshu.com, for callers that need a fixed format. */
export function formattedImageUrl(url: string, format: 'png' | 'jpg'): string | null {
  const token = imageToken(url);
  return token ? `${CI_IMAGE_HOST}${token}?imageView2/format/${format}` : null;
}

/** The best source URL an imageList entry offers (urlDefault, then urlPre, then infoList, then url). */
function imageSource(img: JsonRecord): string | null {
  const fromInfo = arr(img.infoList)
    .map((i) => str(at(i, 'url')))
    .find((u): u is string => u !== null);
  return str(img.urlDefault) ?? str(img.urlPre) ?? fromInfo ?? str(img.url);
}

/** imageList → originals (or, with a format, their ci.xiaohongshu.com conversion), with Live Photo clips. */
export function noteImages(imageList: unknown, format: 'png' | 'jpg' | null = null): JiexiImage[] {
  const out: JiexiImage[] = [];
  for (const entry of arr(imageList)) {
    const img = rec(entry);
    const src = img ? imageSource(img) : null;
    if (!img || !src) continue;
    // A Live Photo says livePhoto: true and carries its clip in `stream`; plain images have an empty stream.
    // A watermarked clip is left out like a watermarked video.
    const clip = pickStream(img.stream);
    out.push({
      url: (format ? formattedImageUrl(src, format) : null) ?? originalImageUrl(src),
      live_photo_url: clip.url,
      width: num(img.width),
      height: num(img.height),
    });
  }
  return out;
}
