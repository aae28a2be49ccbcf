import { h, svg } from './dom.js';

/** A bar chart in SVG (no library): one bar per point, its label under every few bars. */
export function barChart(title: string, points: { label: string; value: number }[], format: (v: number) => string = String): HTMLElement {
  const width = 720;
  const height = 180;
  const pad = { left: 48, bottom: 22, top: 12 };
  // The tallest bar fills the plot (spend per day is often well under a dollar); all zero: a scale of 1.
  const max = Math.max(0, ...points.map((p) => p.value)) || 1;
  const plotW = width - pad.left - 8;
  const plotH = height - pad.bottom - pad.top;
  const bw = points.length ? plotW / points.length : plotW;
  const every = Math.max(1, Math.ceil(points.length / 8));
  const chart = svg(
    'svg',
    { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${title}: ${points.map((p) => `${p.label} ${format(p.value)}`).join(', ') || 'no data'}` },
    svg('text', { x: 4, y: pad.top + 4 }, format(max)),
    svg('text', { x: 4, y: height - pad.bottom }, '0'),
    ...points.map((p, i) => {
      const bh = (p.value / max) * plotH;
      return svg('rect', { x: pad.left + i * bw + 1, y: pad.top + plotH - bh, width: Math.max(1, bw - 2), height: bh }, svg('title', {}, `${p.label}: ${format(p.value)}`));
    }),
    ...points.flatMap((p, i) => (i % every === 0 ? [svg('text', { x: pad.left + i * bw, y: height - 6 }, p.label)] : [])),
  );
  return h('figure', {}, h('figcaption', {}, title), chart);
}
