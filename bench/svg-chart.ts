/**
 * A hand-written SVG line chart (no chart library): panels of series over a log-scaled x axis, used for the scaling
 * run (cost per project at 10, 100 and 1,000 projects). Output is deterministic text, so it diffs well in git.
 */

/** One point of a series. */
export interface ChartPoint {
  x: number;
  y: number;
}

/** One line of a panel. */
export interface ChartSeries {
  name: string;
  points: ChartPoint[];
}

/** One panel: a title, axis labels and its series. */
export interface ChartPanel {
  title: string;
  yLabel: string;
  series: ChartSeries[];
}

/** Layout of the chart. */
export interface ChartOptions {
  title: string;
  xLabel: string;
  /** Width of the whole image in pixels. */
  width?: number;
  /** Height of one panel in pixels. */
  panelHeight?: number;
}

/** Defaults of ChartOptions. */
export const DEFAULT_CHART_OPTIONS = { width: 720, panelHeight: 260 } as const;

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf'];
const MARGIN = { left: 70, right: 170, top: 36, bottom: 44 };

/** Escapes text for SVG content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
export function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const fmt = (n: number) =>
  n === 0 ? '0' : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(1) : n.toFixed(3);

function renderPanel(
  panel: ChartPanel,
  xs: number[],
  top: number,
  width: number,
  height: number,
  xLabel: string,
): string {
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const [minX, maxX] = [Math.min(...xs), Math.max(...xs)];
  const logSpan = Math.log10(maxX) - Math.log10(minX) || 1;
  const px = (x: number) => MARGIN.left + ((Math.log10(x) - Math.log10(minX)) / logSpan) * plotW;
  const yMax = niceCeiling(Math.max(0, ...panel.series.flatMap((s) => s.points.map((p) => p.y))));
  const py = (y: number) => top + MARGIN.top + plotH - (y / yMax) * plotH;
  const out: string[] = [];
  out.push(
    `<text x="${MARGIN.left}" y="${top + 22}" font-size="14" font-weight="bold">${escapeXml(panel.title)}</text>`,
  );
  out.push(
    `<rect x="${MARGIN.left}" y="${top + MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
  );
  for (let i = 0; i <= 4; i++) {
    const v = (yMax / 4) * i;
    const y = py(v).toFixed(1);
    out.push(`<line x1="${MARGIN.left}" y1="${y}" x2="${MARGIN.left + plotW}" y2="${y}" stroke="#eee"/>`);
    out.push(`<text x="${MARGIN.left - 6}" y="${y}" font-size="11" text-anchor="end" dy="4">${fmt(v)}</text>`);
  }
  for (const x of xs) {
    const X = px(x).toFixed(1);
    out.push(`<line x1="${X}" y1="${top + MARGIN.top}" x2="${X}" y2="${top + MARGIN.top + plotH}" stroke="#eee"/>`);
    out.push(`<text x="${X}" y="${top + MARGIN.top + plotH + 16}" font-size="11" text-anchor="middle">${x}</text>`);
  }
  out.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${top + height - 8}" font-size="12" text-anchor="middle">${escapeXml(xLabel)}</text>`,
  );
  out.push(
    `<text transform="translate(16 ${top + MARGIN.top + plotH / 2}) rotate(-90)" font-size="12" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`,
  );
  panel.series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length] as string;
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    const d = pts.map((p, j) => `${j === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)} ${py(p.y).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const p of pts) {
      out.push(
        `<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3.5" fill="${colour}"><title>${escapeXml(`${s.name}: ${fmt(p.y)} at ${p.x}`)}</title></circle>`,
      );
    }
    const ly = top + MARGIN.top + 12 + i * 18;
    const lx = MARGIN.left + plotW + 14;
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 18}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`);
    out.push(`<text x="${lx + 24}" y="${ly}" font-size="11" dy="4">${escapeXml(s.name)}</text>`);
  });
  return out.join('\n');
}

/** Renders the panels one above the other, sharing the x values (log scale). */
export function renderLineChart(panels: ChartPanel[], options: ChartOptions): string {
  const width = options.width ?? DEFAULT_CHART_OPTIONS.width;
  const panelHeight = options.panelHeight ?? DEFAULT_CHART_OPTIONS.panelHeight;
  const xs = [...new Set(panels.flatMap((p) => p.series.flatMap((s) => s.points.map((pt) => pt.x))))]
    .filter((x) => x > 0)
    .sort((a, b) => a - b);
  if (xs.length === 0) throw new RangeError('the chart needs at least one point with x > 0');
  const height = 30 + panels.length * panelHeight;
  const body = panels.map((p, i) => renderPanel(p, xs, 30 + i * panelHeight, width, panelHeight, options.xLabel));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="20" font-size="16" text-anchor="middle" font-weight="bold">${escapeXml(options.title)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
