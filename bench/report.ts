/** The table `pnpm bench` prints: every row against each baseline measured in the same run. */

export interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  /** Answers whose status was not the one the scenario expects (non-2xx for most). */
  unexpected: number;
}

/** Names of the baseline rows, as `measure` labels them. */
export const BASELINE_ROWS = {
  bare: 'baseline: bare express (POST, body not read)',
  floor: 'baseline: seed-flow floor (express.json + one Lua call)',
  oidc: 'baseline: node-oidc-provider client_credentials, Redis adapter',
  body: 'baseline: express sending one precomputed identity body (categories)',
} as const;

const ratio = (value: number, base: number | undefined): string => (base === undefined || base === 0 ? '–' : (value / base).toFixed(2));

export function renderReport(rows: readonly Row[], header: string): string {
  const find = (name: string): Row | undefined => rows.find((row) => row.scenario === name);
  const bare = find(BASELINE_ROWS.bare);
  const floor = find(BASELINE_ROWS.floor);
  const oidc = find(BASELINE_ROWS.oidc);
  const body = find(BASELINE_ROWS.body);
  const lines = [
    '',
    header,
    '',
    '| scenario | req/s | × bare | × floor | × oidc-provider | × identity body | p50 ms | p99 ms | p99 × bare p99 | unexpected status |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${row.rps} | ${ratio(row.rps, bare?.rps)} | ${ratio(row.rps, floor?.rps)} | ${ratio(row.rps, oidc?.rps)} | ` +
        `${ratio(row.rps, body?.rps)} | ${row.p50} | ${row.p99} | ${ratio(row.p99, bare?.p99)} | ${row.unexpected} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
