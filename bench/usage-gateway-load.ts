/**
 * The product app of the usage bench's gateway scenarios (bench/product-app.ts, in its own
 * process) and its load: `GET /whois?domainName=…&apiKey=…` over the accounts' keys in turn.
 */
import type autocannon from 'autocannon';
import { freePort, startServiceProcess } from '@platform/testing';
import { ROOT, SERVICE_JWT_SECRET, type Account, type UsageBenchOptions } from './usage-service';

export function productLoad(url: string, accounts: readonly Account[], options: UsageBenchOptions, seconds: number): autocannon.Options {
  let next = 0;
  return {
    url,
    connections: options.connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const apiKey = (accounts[(next += 1) % accounts.length] as Account).apiKey;
          request.path = `/whois?domainName=example.com&apiKey=${apiKey}`;
          return request;
        },
      },
    ],
  };
}

export async function startProductApp(userUrl: string, mode: string, cpuProfileDir: string | undefined) {
  const port = await freePort();
  return startServiceProcess({
    script: 'bench/product-app.ts',
    cwd: ROOT,
    port,
    nodeArgs: cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir],
    env: { PATH: process.env.PATH, PORT: String(port), USER_URL: userUrl, SERVICE_JWT_SECRET, MODE: mode },
  });
}
