// The status page's stylesheet, inlined and allowed by its SHA-256 in the page's CSP (no script, no inline style).
import { createHash } from 'node:crypto';

export const STATUS_CSS = `
:root { --bg:#f5f7fb; --panel:#fff; --text:#1b2330; --muted:#667085; --line:#e4e8f0; --accent:#2f6fed; --ok:#1f9d55; --deg:#d98b00; --down:#d23c3c; --none:#d5dae3; color-scheme: light; }
@media (prefers-color-scheme: dark) { :root { --bg:#0f141c; --panel:#171d27; --text:#e3e8f0; --muted:#9aa5b8; --line:#2a3342; --accent:#6b9bff; --none:#2f3848; color-scheme: dark; } }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--text); font:15px/1.6 -apple-system, BlinkMacSystemFont, "Segoe UI", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", Roboto, Helvetica, Arial, sans-serif; }
a { color:var(--accent); }
.wrap { max-width:920px; margin:0 auto; padding:0 20px; }
header.top { display:flex; align-items:center; gap:12px; padding:16px 0; }
.brand { display:flex; align-items:center; gap:10px; font-weight:700; font-size:18px; color:var(--text); text-decoration:none; }
.logo { width:30px; height:30px; border-radius:8px; display:grid; place-items:center; background:linear-gradient(135deg,#2f6fed,#7b5cf0); color:#fff; }
.spacer { flex:1; }
.top a.plain { color:var(--text); text-decoration:none; font-weight:600; }
.lang { border:1px solid var(--line); border-radius:8px; padding:4px 10px; text-decoration:none; color:var(--text); }
h1 { font-size:28px; margin:18px 0 6px; }
.lead { color:var(--muted); margin:0 0 18px; }
.banner { display:flex; align-items:center; gap:12px; padding:14px 18px; border-radius:12px; background:var(--panel); border:1px solid var(--line); font-weight:600; font-size:17px; }
.dot { width:12px; height:12px; border-radius:50%; flex:none; background:var(--none); }
.s-ok .dot, .dot.s-ok { background:var(--ok); } .s-degraded .dot, .dot.s-degraded { background:var(--deg); } .s-down .dot, .dot.s-down { background:var(--down); }
nav.windows { display:flex; gap:8px; margin:20px 0 10px; flex-wrap:wrap; }
nav.windows a { padding:4px 12px; border-radius:999px; border:1px solid var(--line); text-decoration:none; color:var(--text); font-size:14px; }
nav.windows a[aria-current="page"] { background:var(--accent); border-color:var(--accent); color:#fff; }
.op { background:var(--panel); border:1px solid var(--line); border-radius:12px; padding:16px 18px; margin:12px 0; min-width:0; }
.op h2 { font-size:17px; margin:0; display:flex; align-items:center; gap:10px; flex-wrap:wrap; }
.op h2 code { font-size:12.5px; color:var(--muted); font-weight:400; }
.badge { margin-left:auto; font-size:13px; font-weight:600; padding:1px 10px; border-radius:999px; border:1px solid var(--line); }
.badge.s-ok { color:var(--ok); } .badge.s-degraded { color:var(--deg); } .badge.s-down { color:var(--down); } .badge.s-unknown { color:var(--muted); }
.facts { color:var(--muted); font-size:13px; margin:6px 0 10px; display:flex; flex-wrap:wrap; gap:4px 18px; }
.facts b { color:var(--text); font-weight:600; }
.chips { display:flex; flex-wrap:wrap; gap:6px; margin:0 0 10px; padding:0; list-style:none; }
.chips li { display:flex; align-items:center; gap:6px; font-size:13px; border:1px solid var(--line); border-radius:999px; padding:2px 10px; }
.chips .dot { width:9px; height:9px; }
.bars { display:flex; gap:2px; height:30px; align-items:stretch; }
.bars span { flex:1; min-width:3px; border-radius:2px; background:var(--none); }
.bars .b-ok { background:var(--ok); } .bars .b-degraded { background:var(--deg); } .bars .b-down { background:var(--down); }
.axis { display:flex; justify-content:space-between; color:var(--muted); font-size:12px; margin-top:4px; }
footer { color:var(--muted); font-size:13px; padding:24px 0 40px; border-top:1px solid var(--line); margin-top:28px; display:flex; gap:16px; flex-wrap:wrap; }
@media (max-width:520px) { h1 { font-size:23px; } .top a.plain { display:none; } .bars { gap:1px; height:26px; } .badge { margin-left:0; } }
`;

export const STATUS_CSS_HASH = `sha256-${createHash('sha256').update(STATUS_CSS).digest('base64')}`;
export const STATUS_CSP = `default-src 'none'; style-src '${STATUS_CSS_HASH}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
