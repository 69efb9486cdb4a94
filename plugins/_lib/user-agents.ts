// User agents shared by plugins that scrape share pages. Which one a platform gets matters: Douyin and Kuaishou
// serve their state script only to a phone (a desktop UA gets an anti-bot page or Kuaishou `result: 2`), while
// Xiaohongshu and Bilibili want a desktop browser. Keep them current-ish; an ancient version string is itself
// a bot signal.

/** iPhone Safari (iOS 17). For Douyin and Kuaishou share pages. */
export const IPHONE_SAFARI_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** Windows desktop Chrome. For Xiaohongshu pages and the Bilibili web API. */
export const DESKTOP_CHROME_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36';

/** The Accept header a browser sends for a page navigation (some share pages answer differently without it). */
export const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The Accept header of an XHR/fetch call to a JSON API. */
export const JSON_ACCEPT = 'application/json, text/plain, */*';
