/**
 * The TypeScript half of scripts/compose-smoke.sh:
 *   cli.ts node-version              NODE_VERSION of ./Dockerfile (the Node stand-in's version)
 *   cli.ts dockerfile <node image>   the final stage of ./Dockerfile on the stand-in (runtime-dockerfile.ts)
 *   cli.ts customer-path             the customer's path through the published ports; reads
 *                                    ADMIN_TOKEN and SERVICE_JWT_SECRET (the stack's .env)
 *   cli.ts profiled-services         services of docker-compose.yml that start only with a profile,
 *                                    one a line (a line naming no service when there is none)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { runMain } from '@platform/runtime';
import { customerPath } from './customer-path';
import { nodeVersion, runtimeDockerfile } from './runtime-dockerfile';

const dockerfile = () => readFileSync(path.resolve(__dirname, '../../Dockerfile'), 'utf8');

function profiledServices(): string[] {
  const file = parse(readFileSync(path.resolve(__dirname, '../../docker-compose.yml'), 'utf8')) as {
    services: Record<string, { profiles?: string[] }>;
  };
  return Object.entries(file.services)
    .filter(([, service]) => service.profiles !== undefined)
    .map(([name]) => name);
}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} must be set`);
  return value;
}

runMain(async () => {
  const [command, argument] = process.argv.slice(2);
  switch (command) {
    case 'node-version':
      process.stdout.write(`${nodeVersion(dockerfile())}\n`);
      return;
    case 'dockerfile':
      if (argument === undefined) throw new Error('usage: cli.ts dockerfile <node image>');
      process.stdout.write(runtimeDockerfile(dockerfile(), argument));
      return;
    case 'customer-path':
      await customerPath({
        authUrl: 'http://127.0.0.1:8081',
        userUrl: 'http://127.0.0.1:8082',
        categorizationUrl: 'http://127.0.0.1:8083',
        mailUrl: 'http://127.0.0.1:8025',
        adminToken: required('ADMIN_TOKEN'),
        serviceJwtSecret: required('SERVICE_JWT_SECRET'),
      });
      return;
    case 'profiled-services': {
      const names = profiledServices();
      process.stdout.write(`${names.length > 0 ? names.join('\n') : '/no profiled service/'}\n`);
      return;
    }
    case undefined:
    default:
      throw new Error('usage: cli.ts node-version | dockerfile <node image> | customer-path | profiled-services');
  }
});
