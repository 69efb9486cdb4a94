// The full description of one Douyin post, as /api/douyin returns it, mapped from the aweme struct.
// The struct is the same in slidesinfo aweme_details[0] and share-page item_list[0].
import type { Host } from '../../../core/sandbox/contract.js';
import { arr, at, firstUrl, type Json, num, obj, str } from './json.js';
import { pickImageUrl, resolvePlayUrl, unwatermarked } from './watermark.js';

export interface DouyinBitRate {
  gear_name: string | null;
  bit_rate: number | null;
  url: string | null;
  width: number | null;
  height: number | null;
}

export interface DouyinVideo {
  /** Watermark-free address (the CDN mp4 when the play redirect resolved); null for image posts. */
  play_url: string | null;
  /** The upstream's own (watermarked) address; null for image posts. */
  play_url_watermark: string | null;
  cover: string | null;
  dynamic_cover: string | null;
  origin_cover: string | null;
  /** Seconds (upstream sends ms); null when unknown or 0. */
  duration: number | null;
  width: number | null;
  height: number | null;
  bit_rates: DouyinBitRate[];
}

export interface DouyinImage {
  url: string | null;
  width: number | null;
  height: number | null;
  /** The motion clip of a Live Photo, when the image is one. */
  live_photo_url: string | null;
}

export interface DouyinInfo {
  id: string;
  type: 'video' | 'images';
  desc: string;
  /** ISO 8601 in UTC ("2024-03-01T08:00:00.000Z"): unambiguous in JSON and easy to read; null when absent. */
  create_time: string | null;
  author: {
    uid: string | null;
    sec_uid: string | null;
    nickname: string | null;
    avatar: string | null;
    signature: string | null;
  };
  statistics: {
    digg: number | null;
    comment: number | null;
    share: number | null;
    collect: number | null;
    play: number | null;
  };
  video: DouyinVideo;
  music: { title: string | null; author: string | null; url: string | null; cover: string | null } | null;
  images: DouyinImage[];
  hashtags: string[];
  share_url: string;
}

/** aweme_type 2 and 68 are image posts; a non-empty images[] settles it for types added later. */
export function isImagePost(item: Json): boolean {
  const type = num(item.aweme_type);
  return type === 2 || type === 68 || arr(item.images).length > 0;
}

const firstOf = (...addrs: unknown[]): string | null => addrs.map(firstUrl).find((u) => u !== null) ?? null;

function mapAuthor(item: Json): DouyinInfo['author'] {
  const a = obj(item.author);
  return {
    uid: str(a?.uid) ?? (typeof a?.uid === 'number' ? String(a.uid) : null),
    sec_uid: str(a?.sec_uid),
    nickname: str(a?.nickname),
    // Largest first: avatar_thumb is a 100px thumbnail.
    avatar: firstOf(a?.avatar_larger, a?.avatar_medium, a?.avatar_thumb),
    signature: str(a?.signature),
  };
}

function mapStatistics(item: Json): DouyinInfo['statistics'] {
  const s = obj(item.statistics);
  return {
    digg: num(s?.digg_count),
    comment: num(s?.comment_count),
    share: num(s?.share_count),
    collect: num(s?.collect_count),
    play: num(s?.play_count),
  };
}

function mapBitRates(video: Json | undefined): DouyinBitRate[] {
  return arr(video?.bit_rate).map((b) => {
    const addr = obj(obj(b)?.play_addr);
    return {
      gear_name: str(obj(b)?.gear_name),
      bit_rate: num(obj(b)?.bit_rate),
      url: firstUrl(addr),
      width: num(addr?.width),
      height: num(addr?.height),
    };
  });
}

function mapMusic(item: Json, images: boolean): DouyinInfo['music'] {
  const m = obj(item.music);
  // Image posts carry their background audio URL in video.play_addr.uri (the anchors' music_url).
  const bgAudio = images ? str(at(item, 'video.play_addr.uri')) : null;
  const url = firstUrl(m?.play_url) ?? (bgAudio && /^https?:\/\//.test(bgAudio) ? bgAudio : null);
  if (!m && !url) return null;
  return {
    title: str(m?.title),
    author: str(m?.author),
    url,
    cover: firstOf(m?.cover_hd, m?.cover_large, m?.cover_medium, m?.cover_thumb),
  };
}

function mapImages(item: Json): DouyinImage[] {
  return arr(item.images).map((img) => {
    const o = obj(img);
    return {
      url: pickImageUrl(o),
      width: num(o?.width),
      height: num(o?.height),
      // Live Photo clips come from the same play endpoint as videos: ask for the clean one too.
      live_photo_url: livePhotoUrl(o),
    };
  });
}

function livePhotoUrl(image: Json | undefined): string | null {
  const url = firstUrl(at(image, 'video.play_addr'));
  return url ? unwatermarked(url) : null;
}

function mapHashtags(item: Json): string[] {
  const tags = arr(item.text_extra)
    .map((t) => str(obj(t)?.hashtag_name))
    .filter((t): t is string => t !== null);
  return [...new Set(tags)];
}

function isoTime(unixSeconds: number | null): string | null {
  return unixSeconds && unixSeconds > 0 ? new Date(unixSeconds * 1000).toISOString() : null;
}

/** Maps the aweme struct; resolves the watermark-free play address over the network (one GET). */
export async function toDouyinInfo(id: string, item: Json, host: Host): Promise<DouyinInfo> {
  const images = isImagePost(item);
  const video = obj(item.video);
  const wm = images ? null : firstUrl(video?.play_addr);
  const durationMs = num(video?.duration) ?? num(item.duration);
  return {
    id,
    type: images ? 'images' : 'video',
    desc: typeof item.desc === 'string' ? item.desc : '',
    create_time: isoTime(num(item.create_time)),
    author: mapAuthor(item),
    statistics: mapStatistics(item),
    video: {
      play_url: wm ? await resolvePlayUrl(unwatermarked(wm), host) : null,
      play_url_watermark: wm,
      cover: firstUrl(video?.cover),
      dynamic_cover: firstUrl(video?.dynamic_cover),
      origin_cover: firstUrl(video?.origin_cover),
      duration: durationMs ? durationMs / 1000 : null,
      width: num(video?.width),
      height: num(video?.height),
      bit_rates: images ? [] : mapBitRates(video),
    },
    music: mapMusic(item, images),
    images: mapImages(item),
    hashtags: mapHashtags(item),
    share_url:
      str(item.share_url) ??
      str(at(item, 'share_info.share_url')) ??
      `https://www.iesdouyin.com/share/${images ? 'note' : 'video'}/${id}/`,
  };
}
