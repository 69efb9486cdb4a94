// The front page's stylesheet: the shared base (page-css.ts) and the hero, the catalogue cards and the code
// samples. Inlined in a <style> element and allowed by its SHA-256 in the page's CSP.
import { inlineStyleCsp, pageCss } from './page-css.js';

export const FRONT_CSS = pageCss({
  light: '--accent-soft:#eaf1ff; --code-bg:#0f1623; --code-text:#dbe4f3; --warn:#9a6200; --warn-soft:#fff5e0; ',
  dark: '--accent-soft:#1c2a45; --code-bg:#0a0e14; --warn:#e0a93d; --warn-soft:#33290f; ',
  width: 1080,
  rules: `
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
.s-ok .sdot { background:var(--ok); } .s-degraded .sdot { background:var(--deg); } .s-down .sdot { background:var(--down); }
footer { color:var(--muted); font-size:13px; padding:28px 0 40px; border-top:1px solid var(--line); margin-top:36px; }
@media (max-width:520px) { .hero h1 { font-size:26px; } .hero { padding:20px 0 12px; } }
`,
});

export const FRONT_CSP = inlineStyleCsp(FRONT_CSS);
