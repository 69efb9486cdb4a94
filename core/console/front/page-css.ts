// The rules the front page and the status page share: one palette, one typeface, one header (logo, brand name,
// language link), so the two read as one site. Each page inlines its whole stylesheet in a <style> element (one
// request, no script) and its CSP allows exactly that text by its SHA-256, never 'unsafe-inline'.
import { createHash } from 'node:crypto';

export interface PageStyle {
  /** The page's own custom properties, beyond the shared palette (with the ok / degraded / down colours): light, then dark ("--ok:#1f9d55; "). */
  light: string;
  dark: string;
  /** Width of the content column, px. */
  width: number;
  /** The page's own rules, after the shared ones. */
  rules: string;
}

export function pageCss(p: PageStyle): string {
  return `
:root { --bg:#f5f7fb; --panel:#fff; --text:#1b2330; --muted:#667085; --line:#e4e8f0; --accent:#2f6fed; --ok:#1f9d55; --deg:#d98b00; --down:#d23c3c; ${p.light}color-scheme: light; }
@media (prefers-color-scheme: dark) { :root { --bg:#0f141c; --panel:#171d27; --text:#e3e8f0; --muted:#9aa5b8; --line:#2a3342; --accent:#6b9bff; ${p.dark}color-scheme: dark; } }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--text); font:15px/1.6 -apple-system, BlinkMacSystemFont, "Segoe UI", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", Roboto, Helvetica, Arial, sans-serif; }
a { color:var(--accent); }
.wrap { max-width:${p.width}px; margin:0 auto; padding:0 20px; }
header.top { display:flex; align-items:center; gap:12px; padding:16px 0; }
.brand { display:flex; align-items:center; gap:10px; font-weight:700; font-size:18px; color:var(--text); text-decoration:none; }
.logo { width:30px; height:30px; border-radius:8px; display:grid; place-items:center; background:linear-gradient(135deg,#2f6fed,#7b5cf0); color:#fff; }
.spacer { flex:1; }
.top a.plain { color:var(--text); text-decoration:none; font-weight:600; }
.lang { border:1px solid var(--line); border-radius:8px; padding:4px 10px; text-decoration:none; color:var(--text); }
@media (max-width:520px) { .top a.plain { display:none; } }
${p.rules}`;
}

/** The CSP of a page made of its HTML, this one stylesheet and same-origin images: the page runs no script. */
export function inlineStyleCsp(css: string): string {
  const hash = `sha256-${createHash('sha256').update(css).digest('base64')}`;
  return `default-src 'none'; style-src '${hash}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}
