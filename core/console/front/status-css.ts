// The status page's stylesheet: the shared base (page-css.ts) and the banner, the window tabs and one card of
// bars per operation. Inlined in a <style> element and allowed by its SHA-256 in the page's CSP.
import { inlineStyleCsp, pageCss } from './page-css.js';

export const STATUS_CSS = pageCss({
  light: '--none:#d5dae3; ',
  dark: '--none:#2f3848; ',
  width: 920,
  rules: `
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
@media (max-width:520px) { h1 { font-size:23px; } .bars { gap:1px; height:26px; } .badge { margin-left:0; } }
`,
});

export const STATUS_CSP = inlineStyleCsp(STATUS_CSS);
