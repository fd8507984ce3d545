/**
 * Self time of a `.cpuprofile` (node --cpu-prof, e.g. `pnpm bench --cpu-prof <dir>`), by function
 * and by file, so a hot path's cost can be read without a browser.
 *   node --import tsx bench/cpu-profile-summary.ts <file.cpuprofile> [--top 40] [--window <seconds>]
 * `--window`: only the busiest stretch of that many seconds (the load, not the start-up or the
 * baselines' turns); percentages are of the busy (not idle) time in it. `--last <seconds>`: only
 * the profile's last that many seconds instead (a process under load for its last seconds whose
 * start-up, compiling every module, is busier than the load: the batch scenarios' user service).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: cpu-profile-summary <file.cpuprofile> [--top N]');
const option = (name: string): number | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : undefined;
};
const top = option('top') ?? 40;
const windowMicros = (option('window') ?? Infinity) * 1e6;
const lastMicros = (option('last') ?? Infinity) * 1e6;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));

// The samples of the window [first, last) with the most busy time (all of them without --window).
const deltas = profile.timeDeltas;
let first = 0;
let last = profile.samples.length;
if (Number.isFinite(windowMicros)) {
  let best = -1;
  let busy = 0;
  let span = 0;
  let start = 0;
  for (let end = 0; end < profile.samples.length; end += 1) {
    span += deltas[end] ?? 0;
    if (!idle.has(profile.samples[end] as number)) busy += deltas[end] ?? 0;
    while (span > windowMicros) {
      span -= deltas[start] ?? 0;
      if (!idle.has(profile.samples[start] as number)) busy -= deltas[start] ?? 0;
      start += 1;
    }
    if (busy > best) [best, first, last] = [busy, start, end + 1];
  }
}
if (Number.isFinite(lastMicros)) {
  let span = 0;
  last = profile.samples.length;
  first = last;
  while (first > 0 && span + (deltas[first - 1] ?? 0) <= lastMicros) span += deltas[(first -= 1)] ?? 0;
}
const selfMicros = new Map<number, number>();
for (let index = first; index < last; index += 1) {
  const id = profile.samples[index] as number;
  if (!idle.has(id)) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (deltas[index] ?? 0));
}
const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);

const shortUrl = (url: string): string =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
    .replace(process.cwd(), '.');

function table(title: string, key: (node: ProfileNode) => string): string {
  const sums = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (node !== undefined) sums.set(key(node), (sums.get(key(node)) ?? 0) + micros);
  }
  const rows = [...sums.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `\n${title} (total ${(total / 1e6).toFixed(2)} s busy)`,
    ...rows.map(([name, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)} %  ${name}`),
  ].join('\n');
}

process.stdout.write(
  `${table('self time by function', (node) => `${node.callFrame.functionName || '(anonymous)'}  ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`)}\n`,
);
process.stdout.write(`${table('self time by file', (node) => shortUrl(node.callFrame.url) || node.callFrame.functionName)}\n`);
