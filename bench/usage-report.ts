import { DEFAULT_TURNS, type UsageBenchReport } from './usage-scenarios';
import type { UsageBenchOptions } from './usage-service';

/** The report as a Markdown table (docs/benchmarks.md shows them). */
export function formatUsageReport(
  report: UsageBenchReport,
  options: Pick<UsageBenchOptions, 'seconds' | 'turns' | 'connections' | 'queueType'>,
): string {
  const turns = options.turns ?? DEFAULT_TURNS;
  const lines = [
    `${options.seconds} s of load per scenario, ${options.connections} connections; user service in its own process on the real Postgres, Redis, RabbitMQ;`,
    `bare express measured as long, in ${turns} turns alternating with the scenario's (bare first); CPU per request from /proc (Postgres and RabbitMQ: every process of the`,
    'server on this machine; load: autocannon, in the bench process), machine: cores busy during the load;',
    `events routed to a ${options.queueType === 'quorum' ? "quorum queue (durable, as the notifier's)" : 'classic queue in memory'}, no consumer`,
    '',
    '| scenario | debits/s | bare express req/s | × bare | p50 ms | p99 ms | bare p99 ms | p99 ÷ bare p99 | CPU µs/req (bare) | Postgres · RabbitMQ · load µs/req (bare load) | machine cores (bare) | answers | credits debited | accounting | outbox backlog max: events (messages) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const shown = (value: number | undefined): string => (value === undefined ? '?' : String(value));
  for (const row of report.scenarios) {
    const answers = Object.entries(row.statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    const expected = `${row.expectedDebits}${row.inFlightAllowance > 0 ? ` +0..${row.inFlightAllowance} in flight` : ''}`;
    const ratio = (row.debitsPerSecond / Math.max(row.bare.rps, 1)).toFixed(2);
    const p99Ratio = (row.p99 / Math.max(row.bare.p99, 1)).toFixed(1);
    const servers = `${shown(row.cpu.postgres)} · ${shown(row.cpu.rabbitmq)} · ${row.cpu.bench} (${row.bare.cpu.bench})`;
    lines.push(
      `| ${row.scenario} | ${row.debitsPerSecond} | ${row.bare.rps} | ${ratio} | ${row.p50} | ${row.p99} | ${row.bare.p99} | ${p99Ratio} | ${shown(row.cpu.service)} (${shown(row.bare.cpu.service)}) | ${servers} | ${shown(row.cpu.machineCores)} (${shown(row.bare.cpu.machineCores)}) | ${answers} | ${row.debited} | ${row.accountingOk ? 'ok' : 'MISMATCH'} (expected ${expected}) | ${row.backlog.events} (${row.backlog.messages}) |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
