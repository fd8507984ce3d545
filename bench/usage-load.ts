/**
 * One load of the usage benches (autocannon), taken in turns: every response's latency and the
 * CPU around each turn (bench/process-cpu.ts), combined into requests per second and percentiles.
 */
import autocannon from 'autocannon';
import { cpuUse, readCpu, type CpuSpan, type CpuUse } from './process-cpu';

/** Requests per second, latency percentiles (ms) and the server's CPU time per request (µs) of one load. */
export interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  /**
   * Where the load's CPU went, per request: the serving process (a measure the machine's other
   * load hardly moves), Postgres, RabbitMQ, the load generator; and the machine's busy cores.
   */
  cpu: CpuUse;
}

export interface Load extends Throughput {
  statuses: Record<string, number>;
}

/** One turn of load: what autocannon counted, every response's latency (ms), and the CPU around it. */
export interface Turn extends CpuSpan {
  result: autocannon.Result;
  latencies: number[];
}

export function runTurn(options: autocannon.Options, serverPid: number | undefined): Promise<Turn> {
  const latencies: number[] = [];
  const before = readCpu(serverPid);
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, result) => {
      if (error) reject(error instanceof Error ? error : new Error('autocannon failed', { cause: error }));
      else resolve({ result, latencies, before, after: readCpu(serverPid) });
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

/** The value below which `share` of the sorted values lie (nearest rank), to 0.1 ms. */
function percentile(sorted: readonly number[], share: number): number {
  const value = sorted[Math.max(Math.ceil(share * sorted.length) - 1, 0)] ?? 0;
  return Math.round(value * 10) / 10;
}

/** The turns of one load as one: requests over the time under load, percentiles over every response. */
export function combine(turns: readonly Turn[]): Load {
  const requests = turns.reduce((sum, turn) => sum + turn.result.requests.total, 0);
  const seconds = turns.reduce((sum, turn) => sum + turn.result.duration, 0);
  const latencies = turns.flatMap((turn) => turn.latencies).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const turn of turns) {
    for (const [status, stats] of Object.entries(turn.result.statusCodeStats ?? {})) {
      statuses[status] = (statuses[status] ?? 0) + (stats as { count: number }).count;
    }
  }
  return {
    rps: Math.round(requests / Math.max(seconds, 0.01)),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpu: cpuUse(turns, requests),
    statuses,
  };
}
