// Plain SVG charts for the HTML reports, drawn on the server: no script, no external asset, no dependency. A chart
// has room kept for its tick labels and axis titles (the y title left of the tick labels, the x title under them),
// so they never overlap.

/** Colours of the reports, named by role. */
export const COLOURS = {
  ink: '#1d2330',
  muted: '#4a5263',
  grid: '#e3e6ec',
  accuracy: '#2456c7',
  review: '#e08a1e',
  alarm: '#c7243a',
  reference: '#9aa3b5',
} as const;

/** The space kept around a chart's plot area for the ticks, the axis titles and a legend. */
export const MARGIN: Margin = { left: 68, right: 24, top: 34, bottom: 56 };

/** Space around a plot area, in pixels. */
export interface Margin {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** One axis: its title, its range, and how a tick reads. */
export interface Axis {
  readonly title: string;
  readonly min: number;
  readonly max: number;
  readonly ticks: readonly number[];
  readonly format: (value: number) => string;
}

/** A plot area and the functions that place a value on it. */
export interface Plot {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  x(value: number): number;
  y(value: number): number;
}

/** A plot area of a `width` × `height` chart with the margins kept, scaled to the two axes. */
export function plotArea(width: number, height: number, x: Axis, y: Axis, margin = MARGIN): Plot {
  const left = margin.left;
  const right = width - margin.right;
  const top = margin.top;
  const bottom = height - margin.bottom;
  return {
    width,
    height,
    left,
    right,
    top,
    bottom,
    x: (value) => left + ((clamp(value, x.min, x.max) - x.min) / (x.max - x.min)) * (right - left),
    y: (value) => bottom - ((clamp(value, y.min, y.max) - y.min) / (y.max - y.min)) * (bottom - top),
  };
}

/** Grid lines, both axes with their ticks and labels, and both titles. `x` null: the caller draws the x labels. */
export function axes(plot: Plot, x: Axis | null, y: Axis): string {
  const parts: string[] = [];
  for (const tick of y.ticks) {
    const at = num(plot.y(tick));
    parts.push(
      `<line x1="${plot.left}" y1="${at}" x2="${plot.right}" y2="${at}" stroke="${COLOURS.grid}"/>`,
      `<text class="tick" x="${plot.left - 6}" y="${num(plot.y(tick) + 3.5)}" text-anchor="end">${escape(y.format(tick))}</text>`,
    );
  }
  if (x) {
    for (const tick of x.ticks) {
      const at = num(plot.x(tick));
      parts.push(
        `<line x1="${at}" y1="${plot.bottom}" x2="${at}" y2="${plot.bottom + 4}" stroke="${COLOURS.muted}"/>`,
        `<text class="tick" x="${at}" y="${plot.bottom + 16}" text-anchor="middle">${escape(x.format(tick))}</text>`,
      );
    }
    parts.push(xTitle(plot, x.title));
  }
  const middle = num((plot.top + plot.bottom) / 2);
  parts.push(
    `<line x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}" stroke="${COLOURS.muted}"/>`,
    `<line x1="${plot.left}" y1="${plot.top}" x2="${plot.left}" y2="${plot.bottom}" stroke="${COLOURS.muted}"/>`,
    `<text class="axis-title" x="14" y="${middle}" transform="rotate(-90 14 ${middle})" text-anchor="middle">${escape(y.title)}</text>`,
  );
  return parts.join('');
}

/** The x axis title, under the tick labels. */
export function xTitle(plot: Plot, title: string): string {
  return `<text class="axis-title" x="${num((plot.left + plot.right) / 2)}" y="${plot.height - 8}" text-anchor="middle">${escape(title)}</text>`;
}

/** A legend in the top margin: a swatch and a label per entry, left to right. */
export function legend(
  plot: Plot,
  entries: ReadonlyArray<{ label: string; colour: string; dashed?: boolean }>,
): string {
  let x = plot.left;
  return entries
    .map(({ label, colour, dashed }) => {
      const swatch = dashed
        ? `<line x1="${x}" y1="12" x2="${x + 14}" y2="12" stroke="${colour}" stroke-width="2" stroke-dasharray="4 3"/>`
        : `<rect x="${x}" y="6" width="12" height="12" fill="${colour}"/>`;
      const text = `<text class="legend" x="${x + 18}" y="16">${escape(label)}</text>`;
      x += 26 + label.length * 6.2;
      return swatch + text;
    })
    .join('');
}

/**
 * Ticks at round steps (1, 2 or 5 × a power of ten) from `min` to at least `max`, about `count` of them; the last
 * tick is the axis's new maximum.
 */
export function niceTicks(min: number, max: number, count = 5): number[] {
  const span = max > min ? max - min : Math.abs(max) || 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((factor) => factor * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  const first = Math.floor(min / step + 1e-9) * step;
  for (let tick = first; tick < max + step - 1e-9; tick += step) ticks.push(round(tick));
  if (ticks.length < 2) ticks.push(round(first + step));
  return ticks;
}

/** A share as a percentage with as many decimals as the step between ticks needs (`0 %`, `2.5 %`). */
export function percentTick(step: number): (value: number) => string {
  let digits = 0;
  while (digits < 3 && Math.abs(Math.round(step * 100 * 10 ** digits) - step * 100 * 10 ** digits) > 1e-6) digits += 1;
  return (value) => `${(value * 100).toFixed(digits)} %`;
}

/** An SVG element of the given size (described by `label` for screen readers). */
export function svg(body: string, width: number, height: number, label: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escape(label)}">${body}</svg>`;
}

/** A number for an SVG attribute. */
export function num(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** Text for HTML or SVG, escaped. */
export function escape(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
