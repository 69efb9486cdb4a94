// A two-series daily chart drawn as SVG by hand: bars for calls (left axis), a line for spend (right axis).
// No chart library: the console stays one small bundle, and SVG attributes are not inline styles (CSP).
import { type Child, h, svg } from './dom.js';
import { int, tokens } from './format.js';

export interface ChartSeries {
  days: string[];
  bars: number[];
  line: number[];
  barLabel: string;
  lineLabel: string;
  /** Shown over the plot when every value is 0. */
  emptyText: string;
  formatLine?: (n: number) => string;
}

/**
 * The top of an axis with four equal steps, each a round number (1, 2, 2.5, 5 x 10^k), so labels never repeat;
 * counts use whole steps only (no "0.5 calls").
 */
export function niceMax(n: number, integer = false): number {
  const need = Math.max(n, 0) / 4;
  if (need === 0) return integer ? 4 : 1;
  const p = 10 ** Math.floor(Math.log10(need));
  let step = 10 * p;
  for (const m of [1, 2, 2.5, 5]) {
    if (need <= m * p) {
      step = m * p;
      break;
    }
  }
  if (integer) step = Math.max(1, Math.ceil(step));
  return step * 4;
}

export function dailyChart(s: ChartSeries): HTMLElement {
  const narrow = window.innerWidth < 640;
  const W = narrow ? 380 : 760;
  const H = narrow ? 220 : 240;
  const pad = { l: 40, r: 52, t: 14, b: 28 };
  const pw = W - pad.l - pad.r;
  const ph = H - pad.t - pad.b;
  const n = Math.max(1, s.days.length);
  const bw = pw / n;
  const maxBar = niceMax(Math.max(0, ...s.bars), true);
  const maxLine = niceMax(Math.max(0, ...s.line));
  const fmtLine = s.formatLine ?? tokens;
  const y = (v: number, max: number): number => pad.t + ph - (v / max) * ph;
  const parts: Child[] = [];
  for (let i = 0; i <= 4; i++) {
    const gy = pad.t + (ph * i) / 4;
    parts.push(svg('line', { x1: pad.l, x2: pad.l + pw, y1: gy, y2: gy, class: 'grid' }));
    parts.push(
      svg('text', { x: pad.l - 6, y: gy + 4, class: 'axis axis-left' }, int(Math.round((maxBar * (4 - i)) / 4))),
    );
    parts.push(
      svg('text', { x: pad.l + pw + 6, y: gy + 4, class: 'axis axis-right' }, fmtLine((maxLine * (4 - i)) / 4)),
    );
  }
  const every = Math.ceil(n / (narrow ? 5 : 10));
  s.days.forEach((day, i) => {
    const v = s.bars[i] ?? 0;
    const bh = (v / maxBar) * ph;
    const x = pad.l + i * bw + bw * 0.15;
    parts.push(
      svg(
        'rect',
        {
          x: x.toFixed(1),
          y: (pad.t + ph - bh).toFixed(1),
          width: (bw * 0.7).toFixed(1),
          height: bh.toFixed(1),
          rx: 2,
          class: 'bar',
        },
        svg('title', {}, `${day}: ${s.barLabel} ${int(v)}, ${s.lineLabel} ${fmtLine(s.line[i] ?? 0)}`),
      ),
    );
    if (i % every === 0 || i === n - 1)
      parts.push(
        svg('text', { x: (pad.l + i * bw + bw / 2).toFixed(1), y: H - 8, class: 'axis axis-x' }, day.slice(5)),
      );
  });
  const pts = s.line.map((v, i) => `${(pad.l + i * bw + bw / 2).toFixed(1)},${y(v, maxLine).toFixed(1)}`).join(' ');
  parts.push(svg('polyline', { points: pts, class: 'line' }));
  s.line.forEach((v, i) => {
    if (v > 0)
      parts.push(
        svg('circle', { cx: (pad.l + i * bw + bw / 2).toFixed(1), cy: y(v, maxLine).toFixed(1), r: 2.5, class: 'dot' }),
      );
  });
  const empty = s.bars.every((v) => v === 0) && s.line.every((v) => v === 0);
  if (empty) parts.push(svg('text', { x: pad.l + pw / 2, y: pad.t + ph / 2, class: 'chart-empty' }, s.emptyText));
  const chart = svg(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': `${s.barLabel} / ${s.lineLabel}` },
    ...parts,
  );
  return h(
    'figure',
    { class: 'chart-box' },
    chart,
    h(
      'figcaption',
      { class: 'legend' },
      h('span', { class: 'key key-bar' }),
      s.barLabel,
      h('span', { class: 'key key-line' }),
      s.lineLabel,
    ),
  );
}
