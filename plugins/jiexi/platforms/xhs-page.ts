// Reading one Xiaohongshu / RedNote note page, desktop or mobile, and saying what it is: the note, an empty note
// entry (login-only, hidden, or a desktop page that withheld it), a desktop 404 (which the mobile page may still
// answer), a note that is gone, or a bot wall. Bot walls are retryable upstream failures, never NOT_FOUND: the
// note may well exist, we were just refused (error_code 300031 "当前笔记暂时无法浏览" on /404/sec_…,
// /website-login/…, "安全限制", HTTP 461/471 captcha answers, 418/412 throttling).
import type { Host, PluginFailure } from '../../../core/sandbox/contract.js';
import { at, type JsonRecord, num, parseJson, rec, str } from '../../_lib/pick.js';
import { parseStateScript } from '../../_lib/state-script.js';
import { parseUrl, queryParam, type UrlParts } from '../../_lib/url-lite.js';
import { DESKTOP_CHROME_UA, HTML_ACCEPT, IPHONE_SAFARI_UA } from '../../_lib/user-agents.js';
import { fail, fetchStep, type StepName } from '../upstream.js';

/** The web hosts that serve note pages (mainland and international). */
export const NOTE_PAGE_HOSTS = ['www.xiaohongshu.com', 'www.rednote.com'];

export const NOTE_ID_IN_PATH = /^\/(?:explore|discovery\/item)\/([0-9a-f]{24})/;

export type PageVerdict =
  | { kind: 'note'; note: JsonRecord; id: string }
  /** The page is fine but the note entry is empty; `landed` is where the redirects ended. */
  | { kind: 'empty'; id: string; landed: UrlParts; errorCode: number | null }
  /**
   * The desktop site said 404 (HTTP 404, or a redirect to /404 that is not a security page, e.g.
   * `/404?errorCode=-510001`). It does so for notes that exist and that the mobile page serves, so this is not
   * yet NOT_FOUND: the caller reads the mobile page first.
   */
  | { kind: 'missing'; failure: PluginFailure }
  | { kind: 'failed'; failure: PluginFailure };

/** Which page a read asks for: the desktop web page, or the mobile (iPhone) page with its own state shape. */
export type PageView = 'desktop' | 'mobile';

function failed(failure: PluginFailure): PageVerdict {
  return { kind: 'failed', failure };
}

// Positive 3000xx codes are XHS risk control ("安全限制", "网络连接异常", "当前笔记暂时无法浏览" on a sec page).
const RISK_CODE = /^3000\d\d$/;
// -510000 is "note not found" in the web API; a page saying so is definitive.
const GONE_CODES = new Set([-510000]);
const WALL_TEXT = /安全限制|安全验证|请完成验证|访问频繁|IP存在风险|网络环境存在风险|captcha/i;
const GONE_TEXT = /笔记不存在|该笔记已被删除|该内容因违规已被删除|内容已被删除|页面不见了/;

function wall(detail: string): PluginFailure {
  return fail(
    'UPSTREAM_FAILED',
    `小红书安全限制，请稍后重试 (Xiaohongshu note page: bot wall, ${detail}; retry later).`,
  );
}

function gone(detail: string): PluginFailure {
  return fail(
    'NOT_FOUND',
    `小红书笔记不存在或已删除 (Xiaohongshu: the note does not exist or was removed; ${detail}).`,
  );
}

/** Where the redirects ended: off the site, a sec/404 page, or the login/captcha wall. Null = a note page. */
export function classifyLanding(landed: UrlParts | null): PluginFailure | null {
  if (!landed || !NOTE_PAGE_HOSTS.includes(landed.host)) {
    return fail(
      'UPSTREAM_FAILED',
      `Xiaohongshu share link: redirected to ${landed?.host ?? 'an invalid URL'} instead of the note page.`,
      `小红书分享链接跳转到了${landed ? ` ${landed.host} ` : '无法识别的地址，'}而不是笔记页面`,
    );
  }
  // Security pages say error_code=…; the plain 404 page of 2026 says errorCode=… (e.g. -510001).
  const code = queryParam(landed.query, 'error_code') ?? queryParam(landed.query, 'errorCode');
  // /website-login/… is the captcha/verify flow; a plain /login landing for a public note is the same risk-control
  // downgrade (XHS sends throttled visitors to log in), not a property of the note.
  if (/^\/(?:website-)?login\b/.test(landed.path))
    return wall(`login/captcha page${code ? `, error_code ${code}` : ''}`);
  if (/^\/404\b/.test(landed.path)) {
    if (/^\/404\/sec_/.test(landed.path) || (code !== null && RISK_CODE.test(code))) {
      return wall(`security page, error_code ${code ?? 'none'}`);
    }
    return gone(`404 page${code ? `, error_code ${code}` : ''}`);
  }
  return null;
}

/** A status that is not 200: throttling and captcha statuses are walls, 404 is gone. */
function classifyStatus(status: number): PluginFailure | null {
  if (status === 200) return null;
  if (status === 461 || status === 471) return wall(`captcha, HTTP ${status}`);
  if (status === 418 || status === 412)
    return fail(
      'UPSTREAM_FAILED',
      `Xiaohongshu note page: throttled (HTTP ${status}); retry later.`,
      `小红书笔记页访问受限（HTTP ${status}），请稍后重试`,
    );
  if (status === 404) return gone('HTTP 404');
  return fail('UPSTREAM_FAILED', `Xiaohongshu note page: HTTP ${status}.`, `小红书笔记页返回 HTTP ${status}`);
}

/** A page without __INITIAL_STATE__: a JSON error, a security page, a "gone" page, or a layout we do not know. */
function classifyStateless(body: string, detail: string): PluginFailure {
  const json = parseJson(body.trim());
  if (json.ok) {
    const code = num(at(json.value, 'code'));
    if (code !== null && RISK_CODE.test(String(code))) return wall(`error code ${code}`);
    if (code !== null && GONE_CODES.has(code)) return gone(`error code ${code}`);
  }
  if (WALL_TEXT.test(body)) return wall('security page');
  if (GONE_TEXT.test(body)) return gone('the page says so');
  return fail(
    'UPSTREAM_FAILED',
    'Xiaohongshu note page could not be read (anti-bot page or changed layout).',
    '小红书笔记页无法读取（验证页面或页面结构已变化）',
    detail,
  );
}

function serverErrorCode(state: unknown): number | null {
  return num(at(state, 'note', 'serverRequestInfo', 'errorCode')) ?? num(at(state, 'serverRequestInfo', 'errorCode'));
}

function lastFilledNote(map: JsonRecord): JsonRecord | null {
  const filled = Object.values(map)
    .map((v) => rec(at(v, 'note')))
    .filter((n): n is JsonRecord => n !== null && Object.keys(n).length > 0);
  return filled[filled.length - 1] ?? null;
}

/** A 404 verdict (HTTP status or /404 landing) is "missing", everything else stays as it is. */
function notFoundOr(failure: PluginFailure): PageVerdict {
  return failure.code === 'NOT_FOUND' ? { kind: 'missing', failure } : failed(failure);
}

/**
 * The mobile page's state (`noteData.data.noteData`, user as `nickName`) as the desktop note shape, so one
 * mapping serves both. undefined = the state is not the mobile shape; null = it is, without a note.
 */
export function mobileNote(state: unknown, pathId: string | null): JsonRecord | null | undefined {
  const container = rec(at(state, 'noteData'));
  if (!container) return undefined;
  const n = rec(at(container, 'data', 'noteData'));
  if (!n || Object.keys(n).length === 0) return null;
  const user = rec(n.user) ?? {};
  return {
    ...n,
    noteId: str(n.noteId) ?? pathId,
    user: {
      userId: str(user.userId) ?? str(user.id),
      nickname: str(user.nickname) ?? str(user.nickName),
      avatar: str(user.avatar) ?? str(user.image),
    },
  };
}

const VIEW_NAMES: Record<PageView, StepName> = {
  desktop: { en: 'Xiaohongshu note page', zh: '小红书笔记页' },
  mobile: { en: 'Xiaohongshu mobile note page', zh: '小红书手机版笔记页' },
};

const VIEW_HEADERS: Record<PageView, Record<string, string>> = {
  desktop: { 'User-Agent': DESKTOP_CHROME_UA, Accept: HTML_ACCEPT },
  mobile: { 'User-Agent': IPHONE_SAFARI_UA, Accept: HTML_ACCEPT },
};

/** GET one note page URL (redirects followed by the host, every hop re-checked) and classify it. */
export async function readNotePage(url: string, host: Host, view: PageView = 'desktop'): Promise<PageVerdict> {
  const got = await fetchStep(host, VIEW_NAMES[view], url, { headers: VIEW_HEADERS[view] });
  if (!got.ok) return failed(got);
  const res = got.value;
  const landed = parseUrl(res.url);
  const byStatus = classifyStatus(res.status);
  if (byStatus) return notFoundOr(byStatus);
  const byLanding = classifyLanding(landed);
  if (byLanding) return notFoundOr(byLanding);
  if (!landed)
    return failed(fail('UPSTREAM_FAILED', 'Xiaohongshu note page: no final URL.', '小红书笔记页没有最终地址'));
  if (res.body.trim() === '')
    return failed(fail('UPSTREAM_FAILED', 'Xiaohongshu note page: empty body.', '小红书笔记页返回空内容'));

  const state = parseStateScript(res.body, '__INITIAL_STATE__');
  if (!state.ok) return failed(classifyStateless(res.body, state.detail));
  const pathId = NOTE_ID_IN_PATH.exec(landed.path)?.[1] ?? null;
  const mobile = mobileNote(state.value, pathId);
  if (mobile !== undefined) {
    const id = str(mobile?.noteId) ?? pathId;
    if (mobile && id) return { kind: 'note', note: mobile, id };
    if (id) return { kind: 'empty', id, landed, errorCode: serverErrorCode(state.value) };
  }
  const note = rec(at(state.value, 'note'));
  const map = rec(at(note, 'noteDetailMap'));
  if (!note || !map) {
    return failed(
      fail(
        'UPSTREAM_FAILED',
        'Xiaohongshu note page: __INITIAL_STATE__ has no note.noteDetailMap (changed shape).',
        '小红书笔记页缺少笔记数据（页面数据格式已变化）',
      ),
    );
  }

  const errorCode = serverErrorCode(state.value);
  if (errorCode !== null && RISK_CODE.test(String(errorCode)))
    return failed(wall(`serverRequestInfo.errorCode ${errorCode}`));
  if (errorCode !== null && GONE_CODES.has(errorCode)) return failed(gone(`serverRequestInfo.errorCode ${errorCode}`));

  let id = str(note.currentNoteId) ?? str(note.firstNoteId);
  // The string "undefined" is how an expired share link shows (PV-Go #61); the path id may still name the entry.
  if (id === 'undefined') id = null;
  if (id === null && pathId && pathId in map) id = pathId;
  if (id === null) {
    return failed(
      fail(
        'NOT_FOUND',
        '小红书分享链接已失效，请重新分享 (Xiaohongshu: the share link has expired, note.currentNoteId is undefined; share the note again).',
      ),
    );
  }
  // The named entry; when the map has no such key at all (a state written for another id), the last filled
  // entry, which is how XHS-Downloader reads the map.
  const entry = rec(at(map, id, 'note')) ?? (id in map ? null : lastFilledNote(map));
  if (!entry || Object.keys(entry).length === 0) return { kind: 'empty', id, landed, errorCode };
  return { kind: 'note', note: entry, id };
}
