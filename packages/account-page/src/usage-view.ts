import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { byId, element } from '@platform/page-dom';
import type { UsageRow } from './api';
import { formatCredits } from './messages';
import { datesWithUsage, usageSeries, type UsageSeries } from './usage-series';

export const HISTORY_DAYS = 30;
// Distinct hues, each at least 4.5:1 against white.
const COLOURS = ['#1d4ed8', '#b45309', '#047857', '#7c3aed', '#be123c', '#0e7490', '#4d7c0f', '#a21caf'];
const CHART_HEIGHT = 260;
const SHORT_DATE = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

let chart: uPlot | undefined;
let resizeObserver: ResizeObserver | undefined;
let removeKeys: (() => void) | undefined;

/** One day's credits as a sentence: what the pointer or the arrow keys point at. */
function readout(series: UsageSeries, index: number | null | undefined): string {
  if (index === null || index === undefined) return "Point at the chart, or focus it and use the arrow keys, to read a day's credits.";
  const date = series.dates[index] ?? '';
  const values = series.products.map((product) => `${product.name} ${formatCredits(product.values[index] ?? 0)}`);
  return `${SHORT_DATE.format(new Date(`${date}T00:00:00Z`))}: ${values.join(', ')} credits used.`;
}

/** The arrow keys move the chart's cursor day by day (Home and End to the first and last), as the pointer does. */
function keyboardCursor(container: HTMLElement, series: UsageSeries): () => void {
  const onKey = (event: KeyboardEvent): void => {
    if (!chart || !['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) return;
    event.preventDefault();
    const last = series.dates.length - 1;
    const current = chart.cursor.idx ?? (event.key === 'ArrowLeft' ? last + 1 : -1);
    const steps: Record<string, number> = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: last };
    const index = Math.min(last, Math.max(0, steps[event.key] ?? current));
    const x = Date.parse(`${series.dates[index] ?? ''}T00:00:00Z`) / 1000;
    const top = Math.max(...series.products.map((product) => product.values[index] ?? 0));
    chart.setCursor({ left: chart.valToPos(x, 'x'), top: chart.valToPos(top, 'y') });
  };
  container.addEventListener('keydown', onKey);
  return () => container.removeEventListener('keydown', onKey);
}

function drawChart(series: UsageSeries, container: HTMLElement): void {
  const xs = series.dates.map((date) => Date.parse(`${date}T00:00:00Z`) / 1000);
  const options: uPlot.Options = {
    width: Math.max(container.clientWidth, 240),
    height: CHART_HEIGHT,
    // Dates are UTC days, whatever the reader's time zone.
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    scales: { x: { time: true }, y: { range: (_chart, _min, max) => [0, Math.max(max, 1) * 1.1] } },
    axes: [
      {
        stroke: '#374151',
        size: 56,
        // A tick every week (two at phone width), counted back from today, which is always labelled.
        splits: () => {
          const step = (container.clientWidth < 480 ? 14 : 7) * 86_400;
          const last = xs[xs.length - 1] ?? 0;
          const ticks: number[] = [];
          for (let tick = last; tick >= (xs[0] ?? last); tick -= step) ticks.unshift(tick);
          return ticks;
        },
        values: (_chart, ticks) => {
          const labels = ticks.map((seconds) => {
            const label = SHORT_DATE.format(new Date(seconds * 1000));
            return seconds === xs[xs.length - 1] ? `${label}\nToday` : label;
          });
          // What the canvas shows, readable by tests and tools.
          container.dataset.xTicks = labels.join('|');
          return labels;
        },
      },
      { stroke: '#374151', size: 64, values: (_chart, ticks) => ticks.map((tick) => formatCredits(tick)) },
    ],
    legend: { live: true },
    hooks: {
      setCursor: [
        (plot) => {
          byId('usage-readout').textContent = readout(series, plot.cursor.idx);
        },
      ],
    },
    series: [
      { label: 'Date', value: (_chart, seconds) => (seconds === null ? '' : new Date(seconds * 1000).toISOString().slice(0, 10)) },
      ...series.products.map((product, index) => ({
        label: product.name,
        stroke: COLOURS[index % COLOURS.length] as string,
        width: 2,
        points: { show: true, size: 6 },
        value: (_chart: uPlot, credits: number | null) => (credits === null ? '' : formatCredits(credits)),
      })),
    ],
  };
  chart?.destroy();
  chart = new uPlot(options, [xs, ...series.products.map((product) => product.values)], container);
  resizeObserver?.disconnect();
  resizeObserver = new ResizeObserver(() => chart?.setSize({ width: Math.max(container.clientWidth, 240), height: CHART_HEIGHT }));
  resizeObserver.observe(container);
  removeKeys?.();
  removeKeys = keyboardCursor(container, series);
}

function numbersTable(series: UsageSeries): HTMLTableElement {
  const head = element('tr', {}, [
    element('th', { text: 'Date (UTC)', attributes: { scope: 'col' } }),
    ...series.products.map((product) => element('th', { text: product.name, attributes: { scope: 'col' } })),
  ]);
  const rows = datesWithUsage(series).map((day) =>
    element('tr', {}, [
      element('th', { text: day.date, attributes: { scope: 'row' } }),
      ...day.values.map((value, index) =>
        element('td', { text: formatCredits(value), attributes: { 'data-label': series.products[index]?.name ?? '' } }),
      ),
    ]),
  );
  const total = element('tr', {}, [
    element('th', { text: 'Total', attributes: { scope: 'row' } }),
    ...series.products.map((product) => element('td', { text: formatCredits(product.total), attributes: { 'data-label': product.name } })),
  ]);
  return element('table', { className: 'stacked' }, [
    element('caption', { text: `Credits used per day, last ${HISTORY_DAYS} days (days without usage left out)` }),
    element('thead', {}, [head]),
    element('tbody', {}, rows),
    element('tfoot', {}, [total]),
  ]);
}

/** The chart of the last 30 days, one line per product, and the same numbers as a table. */
export function renderUsage(rows: readonly UsageRow[], now = new Date()): void {
  const series = usageSeries(rows, HISTORY_DAYS, now);
  const total = series.products.reduce((sum, product) => sum + product.total, 0);
  const container = byId('usage-chart');
  const numbers = byId('usage-numbers');
  if (series.products.length === 0) {
    byId('usage-summary').textContent = `No credits used in the last ${HISTORY_DAYS} days.`;
    container.hidden = true;
    numbers.hidden = true;
    byId('usage-readout').hidden = true;
    return;
  }
  const products = series.products.length === 1 ? '1 product' : `${series.products.length} products`;
  byId('usage-summary').textContent = `${formatCredits(total)} credits used in the last ${HISTORY_DAYS} days by ${products} (UTC days).`;
  container.hidden = false;
  numbers.hidden = false;
  byId('usage-readout').hidden = false;
  drawChart(series, container);
  byId('usage-table').replaceChildren(numbersTable(series));
}
