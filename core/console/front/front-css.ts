// The front page's stylesheet, inlined in a <style> element: one request for the whole page. The CSP allows
// exactly this text by its SHA-256 (no 'unsafe-inline'), so an injected style or script still cannot run.
import { createHash } from 'node:crypto';

export const FRONT_CSS = `
:root { --bg:#f5f7fb; --panel:#fff; --text:#1b2330; --muted:#667085; --line:#e4e8f0; --accent:#2f6fed; --accent-soft:#eaf1ff; --code-bg:#0f1623; --code-text:#dbe4f3; --warn:#9a6200; --warn-soft:#fff5e0; color-scheme: light; }
@media (prefers-color-scheme: dark) {
  :root { --bg:#0f141c; --panel:#171d27; --text:#e3e8f0; --muted:#9aa5b8; --line:#2a3342; --accent:#6b9bff; --accent-soft:#1c2a45; --code-bg:#0a0e14; --warn:#e0a93d; --warn-soft:#33290f; color-scheme: dark; }
}
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--text); font:15px/1.6 -apple-system, BlinkMacSystemFont, "Segoe UI", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", Roboto, Helvetica, Arial, sans-serif; }
a { color:var(--accent); }
.wrap { max-width:1080px; margin:0 auto; padding:0 20px; }
header.top { display:flex; align-items:center; gap:12px; padding:16px 0; }
.brand { display:flex; align-items:center; gap:10px; font-weight:700; font-size:18px; color:var(--text); text-decoration:none; }
.logo { width:30px; height:30px; border-radius:8px; display:grid; place-items:center; background:linear-gradient(135deg,#2f6fed,#7b5cf0); color:#fff; }
.spacer { flex:1; }
.top a.plain { color:var(--text); text-decoration:none; font-weight:600; }
.lang { border:1px solid var(--line); border-radius:8px; padding:4px 10px; text-decoration:none; color:var(--text); }
.hero { padding:40px 0 28px; }
.hero h1 { font-size:34px; line-height:1.25; margin:0 0 12px; }
.hero p { color:var(--muted); max-width:720px; margin:0 0 20px; font-size:16px; }
.cta { display:flex; flex-wrap:wrap; gap:10px; }
.hero p.offer { margin:14px 0 0; color:var(--accent); font-weight:600; font-size:15px; }
.btn { display:inline-block; padding:10px 18px; border-radius:9px; border:1px solid var(--line); background:var(--panel); color:var(--text); font-weight:600; text-decoration:none; }
.btn-primary { background:var(--accent); border-color:var(--accent); color:#fff; }
section { margin:28px 0; }
h2 { font-size:21px; margin:0 0 6px; }
.note { color:var(--muted); margin:0 0 14px; font-size:14px; }
.grid { display:grid; grid-template-columns:repeat(auto-fill, minmax(240px, 1fr)); gap:14px; }
.card { background:var(--panel); border:1px solid var(--line); border-radius:12px; padding:16px 18px; display:flex; flex-direction:column; gap:6px; min-width:0; }
.card h3 { margin:0; font-size:16px; display:flex; gap:8px; align-items:baseline; flex-wrap:wrap; }
.card p { margin:0; color:var(--muted); font-size:13.5px; overflow-wrap:anywhere; }
.card code { font-size:12.5px; color:var(--muted); }
.price { font-size:20px; font-weight:700; margin-top:auto; }
.price small { font-size:13px; font-weight:400; color:var(--muted); }
.card p.per1000 { font-size:12.5px; }
.off { opacity:.7; }
.badge { display:inline-block; font-size:12px; font-weight:600; padding:1px 8px; border-radius:999px; background:var(--warn-soft); color:var(--warn); }
pre { background:var(--code-bg); color:var(--code-text); padding:14px 16px; border-radius:10px; overflow:auto; font:12.5px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin:0 0 12px; white-space:pre; }
ul.links { padding-left:20px; margin:0; }
ul.links li { margin:4px 0; }
a.status { display:flex; align-items:center; gap:6px; color:var(--text); text-decoration:none; font-weight:600; font-size:14px; }
.sdot { width:9px; height:9px; border-radius:50%; background:var(--line); }
.s-ok .sdot { background:#1f9d55; } .s-degraded .sdot { background:#d98b00; } .s-down .sdot { background:#d23c3c; }
footer { color:var(--muted); font-size:13px; padding:28px 0 40px; border-top:1px solid var(--line); margin-top:36px; }
@media (max-width:520px) { .hero h1 { font-size:26px; } .hero { padding:20px 0 12px; } .top a.plain { display:none; } }
`;

export const FRONT_CSS_HASH = `sha256-${createHash('sha256').update(FRONT_CSS).digest('base64')}`;

/** Nothing but this stylesheet and same-origin images: the page runs no script at all. */
export const FRONT_CSP = `default-src 'none'; style-src '${FRONT_CSS_HASH}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
