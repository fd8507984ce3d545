import type { UsageBenchOptions, UsageBenchReport } from './usage-scenarios';

/** The report as a Markdown table (the README's performance section shows one). */
export function formatUsageReport(report: UsageBenchReport, options: Pick<UsageBenchOptions, 'seconds' | 'connections'>): string {
  const lines = [
    `${options.seconds} s per load, ${options.connections} connections; user service in its own process on the real Postgres, Redis, RabbitMQ;`,
    'bare express measured right before each scenario',
    '',
    '| scenario | debits/s | bare express req/s | × bare | p50 ms | p99 ms | bare p99 ms | p99 ÷ bare p99 | CPU µs/req (bare) | answers | credits debited | accounting |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of report.scenarios) {
    const answers = Object.entries(row.statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    const expected = `${row.expectedDebits}${row.inFlightAllowance > 0 ? ` +0..${row.inFlightAllowance} in flight` : ''}`;
    const ratio = (row.debitsPerSecond / Math.max(row.bare.rps, 1)).toFixed(2);
    const p99Ratio = (row.p99 / Math.max(row.bare.p99, 1)).toFixed(1);
    lines.push(
      `| ${row.scenario} | ${row.debitsPerSecond} | ${row.bare.rps} | ${ratio} | ${row.p50} | ${row.p99} | ${row.bare.p99} | ${p99Ratio} | ${row.cpuMicrosPerRequest ?? '?'} (${row.bare.cpuMicrosPerRequest ?? '?'}) | ${answers} | ${row.debited} | ${row.accountingOk ? 'ok' : 'MISMATCH'} (expected ${expected}) |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
