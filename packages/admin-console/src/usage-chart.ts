/** Credits used per UTC day over 30 days, split by product: stacked bars with a credits axis and dates (an SVG built here). */
import { byId, element } from '@platform/page-dom';
import type { DailyUsage } from './api';

const SVG = 'http://www.w3.org/2000/svg';
const number = new Intl.NumberFormat('en-US');
const SHORT = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
// Distinct hues, each at least 3:1 against white.
export const COLOURS = ['#1d4ed8', '#b45309', '#047857', '#7c3aed', '#be123c', '#0e7490', '#4d7c0f', '#a21caf'];
const DAYS = 30;
const [LEFT, RIGHT, TOP, BOTTOM] = [56, 632, 12, 196];

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>, text?: string) {
  const created = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) created.setAttribute(name, String(value));
  if (text !== undefined) created.textContent = text;
  return created;
}

/** A round step for the credits axis: 1, 2 or 5 times a power of ten, about a quarter of the peak. */
function niceStep(peak: number): number {
  const rough = Math.max(1, peak / 4);
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? power * 10;
}

export function renderUsage(items: DailyUsage[], today = new Date()): void {
  const dates: string[] = [];
  for (let back = DAYS - 1; back >= 0; back -= 1)
    dates.push(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - back)).toISOString().slice(0, 10));
  const products = [...new Map(items.map((item) => [item.productId, item.productName])).entries()].sort((a, b) => a[0] - b[0]);
  const used = (date: string, productId: number) =>
    items.filter((item) => item.date === date && item.productId === productId).reduce((sum, item) => sum + item.creditsUsed, 0);
  const perDay = dates.map((date) => products.reduce((sum, [id]) => sum + used(date, id), 0));
  const total = perDay.reduce((sum, day) => sum + day, 0);
  const step = niceStep(Math.max(1, ...perDay));
  const top = step * Math.ceil(Math.max(1, ...perDay) / step);
  byId('usage-summary').textContent =
    total === 0
      ? `No usage in the last ${DAYS} days.`
      : `${number.format(total)} credits used in the last ${DAYS} days (UTC days) by ${products.length} product${products.length === 1 ? '' : 's'}; the busiest day used ${number.format(Math.max(...perDay))}.`;
  const chart = svg('svg', { viewBox: '0 0 640 236', role: 'img', 'aria-labelledby': 'usage-summary' });
  const y = (credits: number) => BOTTOM - (credits / top) * (BOTTOM - TOP);
  const slot = (RIGHT - LEFT) / DAYS;
  for (let tick = 0; tick <= top; tick += step) {
    chart.append(svg('line', { x1: LEFT, x2: RIGHT, y1: y(tick), y2: y(tick), class: tick === 0 ? 'axis' : 'grid' }));
    chart.append(svg('text', { x: LEFT - 6, y: y(tick) + 4, 'text-anchor': 'end', class: 'tick' }, number.format(tick)));
  }
  chart.append(
    svg(
      'text',
      { x: 12, y: (TOP + BOTTOM) / 2, class: 'axis-title', transform: `rotate(-90 12 ${(TOP + BOTTOM) / 2})`, 'text-anchor': 'middle' },
      'Credits',
    ),
  );
  dates.forEach((date, index) => {
    let base = 0;
    products.forEach(([id, name], series) => {
      const value = used(date, id);
      if (value === 0) return;
      const bar = svg('rect', {
        x: LEFT + index * slot + 2,
        y: y(base + value),
        width: slot - 4,
        height: Math.max(1, y(base) - y(base + value)),
        fill: COLOURS[series % COLOURS.length] as string,
      });
      bar.append(svg('title', {}, `${date} · ${name}: ${number.format(value)} credits`));
      chart.append(bar);
      base += value;
    });
    // A date every week, counted back from today, which is always labelled.
    const back = DAYS - 1 - index;
    if (back % 7 === 0) {
      const x = LEFT + index * slot + slot / 2;
      chart.append(svg('line', { x1: x, x2: x, y1: BOTTOM, y2: BOTTOM + 4, class: 'axis' }));
      const label = SHORT.format(new Date(`${date}T00:00:00Z`));
      chart.append(
        svg(
          'text',
          { x, y: BOTTOM + 18, 'text-anchor': back === 0 ? 'end' : 'middle', class: 'tick' },
          // "Today" alone: its date, beside the week before's at phone width, would overlap it.
          back === 0 ? 'Today' : label,
        ),
      );
    }
  });
  chart.append(
    svg('text', { x: (LEFT + RIGHT) / 2, y: 232, 'text-anchor': 'middle', class: 'axis-title' }, `Day (UTC), today ${SHORT.format(today)}`),
  );
  byId('usage-chart').replaceChildren(chart);
  byId('usage-legend').replaceChildren(
    ...products.map(([id, name], series) => {
      const swatch = svg('svg', { viewBox: '0 0 10 10', width: 12, height: 12, 'aria-hidden': 'true' });
      swatch.append(svg('rect', { width: 10, height: 10, fill: COLOURS[series % COLOURS.length] as string }));
      const sum = dates.reduce((acc, date) => acc + used(date, id), 0);
      return element('li', {}, [swatch, document.createTextNode(` ${name}: ${number.format(sum)}`)]);
    }),
  );
}
