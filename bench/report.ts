/** The table `pnpm bench` prints: every row against each baseline measured in the same run. */

export interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  /** Answers whose status was not the one the scenario expects (non-2xx for most). */
  unexpected: number;
  /** CPU time (user + system) of the serving process per request, in µs; undefined when not measured. */
  cpuUs?: number | undefined;
}

/** Names of the baseline rows, as `measure` labels them. */
export const BASELINE_ROWS = {
  bare: 'baseline: bare express (POST, body not read)',
  floor: 'baseline: seed-flow floor (express.json + one Lua call)',
  plainBalance: 'baseline: plain balance read (GET, one Redis read + one Postgres query per request)',
  oidc: 'baseline: node-oidc-provider client_credentials, Redis adapter',
  body: 'baseline: express sending one precomputed identity body (categories)',
} as const;

const ratio = (value: number, base: number | undefined): string => (base === undefined || base === 0 ? '–' : (value / base).toFixed(2));

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** One row per scenario from several rounds: the median of each figure, the unexpected answers summed. */
export function medianRows(rounds: readonly Row[]): Row[] {
  const names = [...new Set(rounds.map((row) => row.scenario))];
  return names.map((scenario) => {
    const of = rounds.filter((row) => row.scenario === scenario);
    const cpu = of.flatMap((row) => (row.cpuUs === undefined ? [] : [row.cpuUs]));
    return {
      scenario,
      rps: median(of.map((row) => row.rps)),
      p50: median(of.map((row) => row.p50)),
      p99: median(of.map((row) => row.p99)),
      unexpected: of.reduce((sum, row) => sum + row.unexpected, 0),
      cpuUs: cpu.length > 0 ? median(cpu) : undefined,
    };
  });
}

export function renderReport(rows: readonly Row[], header: string): string {
  const find = (name: string): Row | undefined => rows.find((row) => row.scenario === name);
  const bare = find(BASELINE_ROWS.bare);
  const floor = find(BASELINE_ROWS.floor);
  const plainBalance = find(BASELINE_ROWS.plainBalance);
  const oidc = find(BASELINE_ROWS.oidc);
  const body = find(BASELINE_ROWS.body);
  const lines = [
    '',
    header,
    '',
    '| scenario | req/s | × bare | × floor | × plain balance | × oidc-provider | × identity body | p50 ms | p99 ms | p99 × bare p99 | server CPU µs/req | unexpected status |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${row.rps} | ${ratio(row.rps, bare?.rps)} | ${ratio(row.rps, floor?.rps)} | ${ratio(row.rps, plainBalance?.rps)} | ${ratio(row.rps, oidc?.rps)} | ` +
        `${ratio(row.rps, body?.rps)} | ${row.p50} | ${row.p99} | ${ratio(row.p99, bare?.p99)} | ` +
        `${row.cpuUs === undefined ? '–' : Math.round(row.cpuUs)} | ${row.unexpected} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
