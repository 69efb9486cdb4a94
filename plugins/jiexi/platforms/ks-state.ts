// Reading Kuaishou's window.INIT_STATE: which object answers for the linked post, and how it maps to JiexiData.
// The state's keys are obfuscated (each character shifted, e.g. `tibsfJogp.2`, `gfudiQipupJogp.2`) and change
// between builds and between the main app's pages (m.kuaishou.com, v.m.chenzhongtech.com) and 极速版's
// (www.gifshow.com). It holds several objects with a `result`: the photo fetch, the share info (whose `photo`
// is a stub naming the post), recommendation lists (`feeds[]` of other posts). So nothing is found by key name:
// a photo is any object shaped like one (a `photoId` plus media, caption or cover list) and the post is the one
// whose photoId is the id in the link.
import type { PluginFailure } from '../../../core/sandbox/contract.js';
import { arr, at, idStr, isRecord, type JsonRecord, num, rec, str } from '../../_lib/pick.js';
import type { JiexiData } from '../platform.js';
import { fail } from '../upstream.js';

/** One photo-shaped object, the object holding it (atlases may sit beside it) and its nearest `result`. */
export interface PhotoHit {
  photo: JsonRecord;
  parent: JsonRecord | null;
  owner: JsonRecord | null;
}

const MAX_DEPTH = 6;

/** A throttled visitor, sent to the captcha page or answered result 2001: the post may well exist, retry later. */
export const CAPTCHA_ZH = '快手要求验证码（访问受限），请稍后重试';

function isAtlasShaped(v: unknown): v is JsonRecord {
  return isRecord(v) && Array.isArray(v.list) && (Array.isArray(v.cdnList) || Array.isArray(v.cdn));
}

/**
 * The atlas (image post) of a photo. Pages put it in three places: photo.ext_params.atlas, photo.atlas, or beside
 * the photo in the same object (2026 H5 and 极速版 pages), under a key that may itself be obfuscated.
 */
export function atlasOf(photo: JsonRecord, parent: JsonRecord | null): JsonRecord | null {
  const own = rec(at(photo, 'ext_params', 'atlas')) ?? rec(photo.atlas);
  if (own) return own;
  if (!parent) return null;
  return (
    rec(parent.atlas) ?? (Object.values(parent).find((v) => v !== photo && isAtlasShaped(v)) as JsonRecord) ?? null
  );
}

function hasMedia(photo: JsonRecord, parent: JsonRecord | null): boolean {
  return arr(photo.mainMvUrls).length > 0 || arr(at(atlasOf(photo, parent), 'list')).length > 0;
}

function isPhotoShaped(v: JsonRecord): boolean {
  return idStr(v.photoId) !== null && (Array.isArray(v.mainMvUrls) || Array.isArray(v.coverUrls) || 'caption' in v);
}

/** Every object with a numeric `result` and every photo-shaped object, breadth first. */
function scan(state: unknown): { results: JsonRecord[]; photos: PhotoHit[] } {
  const results: JsonRecord[] = [];
  const photos: PhotoHit[] = [];
  type Item = { v: unknown; depth: number; parent: JsonRecord | null; owner: JsonRecord | null };
  const queue: Item[] = [{ v: state, depth: 0, parent: null, owner: null }];
  while (queue.length) {
    const { v, depth, parent, owner } = queue.shift() as Item;
    if (Array.isArray(v)) {
      if (depth < MAX_DEPTH) for (const child of v) queue.push({ v: child, depth: depth + 1, parent: null, owner });
      continue;
    }
    if (!isRecord(v)) continue;
    const here = typeof v.result === 'number' ? v : owner;
    if (here === v) results.push(v);
    if (isPhotoShaped(v)) photos.push({ photo: v, parent, owner });
    if (depth < MAX_DEPTH)
      for (const child of Object.values(v)) queue.push({ v: child, depth: depth + 1, parent: v, owner: here });
  }
  return { results, photos };
}

/**
 * The object among INIT_STATE's values that answers for the photo, read without knowing the post id: the
 * `result 1` object whose `photo` has media; else an error result (captcha, gone) that explains why there is
 * none; then a `result 1` object whose photo is null (deleted); then a photo stub without media (a shape we do
 * not know); null = no result object at all.
 */
export function findPhotoState(state: unknown): JsonRecord | null {
  const { results } = scan(state);
  return (
    results.find((o) => o.result === 1 && isRecord(o.photo) && hasMedia(o.photo, o)) ??
    results.find((o) => o.result !== 1) ??
    results.find((o) => 'photo' in o && !isRecord(o.photo)) ??
    results.find((o) => 'photo' in o) ??
    results[0] ??
    null
  );
}

export type PhotoVerdict = { kind: 'photo'; hit: PhotoHit } | { kind: 'failed'; failure: PluginFailure };

function photoIdOf(photo: JsonRecord): string | null {
  return idStr(photo.photoId);
}

/**
 * The linked post in INIT_STATE. With the link's photo id: the photo-shaped object with that id and media wins
 * wherever it sits and whatever its keys are called. Without such an object the state is read as before
 * (findPhotoState), except that media belonging to another post (a recommendation) is never returned as this
 * one: that is a failure naming both ids.
 */
export function findLinkedPhoto(state: unknown, photoId: string | null): PhotoVerdict {
  const { photos } = scan(state);
  const match = photoId ? photos.find((h) => photoIdOf(h.photo) === photoId && hasMedia(h.photo, h.parent)) : undefined;
  if (match) return { kind: 'photo', hit: match };
  const found = findPhotoState(state);
  if (!found)
    return {
      kind: 'failed',
      failure: fail(
        'UPSTREAM_FAILED',
        'Kuaishou share page: INIT_STATE has no object with result/photo (changed shape).',
        '快手分享页缺少作品数据（页面数据格式已变化）',
      ),
    };
  if (found.result !== 1) return { kind: 'failed', failure: resultFailure(found.result, str(found.error_msg)) };
  const photo = rec(found.photo);
  if (!photo)
    return {
      kind: 'failed',
      failure: fail('NOT_FOUND', 'Kuaishou: the video does not exist or was deleted.', '快手视频不存在或已删除'),
    };
  const otherId = photoIdOf(photo);
  if (photoId && otherId && otherId !== photoId && hasMedia(photo, found))
    return {
      kind: 'failed',
      failure: fail(
        'UPSTREAM_FAILED',
        `Kuaishou share page: INIT_STATE carries post ${otherId} but not the linked post ${photoId} (changed shape).`,
        `快手分享页只有作品 ${otherId}，没有链接中的作品 ${photoId}（页面数据格式已变化）`,
      ),
    };
  return { kind: 'photo', hit: { photo, parent: found, owner: found } };
}

/** Maps a non-1 `result` code: 2001/50/2 are refusals (captcha, signature, desktop page), 223 is gone. */
export function resultFailure(result: unknown, message: string | null): PluginFailure {
  const detail = message ? ` (${message})` : '';
  if (result === 223)
    return fail(
      'NOT_FOUND',
      `Kuaishou: the video does not exist or was deleted (result 223)${detail}.`,
      '快手视频不存在或已删除',
    );
  if (result === 2001)
    return fail(
      'UPSTREAM_FAILED',
      `Kuaishou share page: captcha required, IP rate-limited (result 2001)${detail}.`,
      CAPTCHA_ZH,
    );
  if (result === 50)
    return fail(
      'UPSTREAM_FAILED',
      `Kuaishou share page: signature check failed (result 50)${detail}.`,
      '快手签名校验失败，请稍后重试',
    );
  if (result === 2)
    return fail(
      'UPSTREAM_FAILED',
      `Kuaishou share page: refused (result 2, desktop page served)${detail}.`,
      '快手拒绝了请求（返回了网页版页面），请稍后重试',
    );
  return fail(
    'UPSTREAM_FAILED',
    `Kuaishou share page: result ${String(result)}${detail}.`,
    `快手分享页返回错误（result ${String(result)}）`,
  );
}

function atlasHost(atlas: unknown, listKey: 'cdnList' | 'musicCdnList' = 'cdnList'): string | null {
  return str(at(atlas, listKey, 0, 'cdn')) ?? str(at(atlas, listKey, 0)) ?? str(at(atlas, 'cdn', 0));
}

function onHost(cdn: string, path: string): string {
  return /^https?:\/\//.test(path) ? path : `https://${cdn}${path.startsWith('/') ? '' : '/'}${path}`;
}

/** Maps the linked photo (see findLinkedPhoto). The CDN host is cdn[0] (a string) or cdnList[0].cdn. */
export function photoToData(hit: PhotoHit, fallbackId: string): JiexiData {
  const { photo } = hit;
  const atlas = atlasOf(photo, hit.parent);
  const cdn = atlasHost(atlas);
  const paths = cdn
    ? arr(at(atlas, 'list'))
        .map(str)
        .filter((p): p is string => p !== null)
    : [];
  const images = cdn ? paths.map((p) => onHost(cdn, p)) : [];
  // atlas.size[i] = {w, h} when the page lists it.
  const sizes = arr(at(atlas, 'size'));
  const items = images.map((url, i) => ({
    url,
    live_photo_url: null,
    width: num(at(sizes[i], 'w')),
    height: num(at(sizes[i], 'h')),
  }));
  // An image post's background music is atlas.music on the music CDN (or the image CDN).
  const atlasMusic = str(at(atlas, 'music'));
  const musicHost = atlasHost(atlas, 'musicCdnList') ?? cdn;
  const musicUrl = images.length && atlasMusic && musicHost ? onHost(musicHost, atlasMusic) : null;
  const durationMs = num(photo.duration);
  const music = str(at(photo, 'soundTrack', 'name'));
  return {
    platform: 'kuaishou',
    id: photoIdOf(photo) ?? fallbackId,
    type: images.length ? 'images' : 'video',
    title: str(photo.caption) ?? '',
    cover: str(at(photo, 'coverUrls', 0, 'url')),
    // mainMvUrls[0] is the watermark-free file as served; image posts have no playable video.
    url: images.length ? null : str(at(photo, 'mainMvUrls', 0, 'url')),
    images,
    author: { id: idStr(photo.userId), name: str(photo.userName), avatar: str(photo.headUrl) },
    duration: durationMs !== null && durationMs > 0 ? Math.round(durationMs / 1000) : null,
    music: music || musicUrl ? { title: music, author: null, url: musicUrl } : null,
    image_items: items,
    // mainMvUrls is the file Kuaishou serves its own player: no watermark is burnt in.
    watermark: false,
    watermark_url: null,
    note: null,
  };
}
