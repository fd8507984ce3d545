import { createPool } from '@platform/db';
import { silentLogger } from './logs';
import { testServers, uniqueId } from './servers';

/** A database of its own on the shared Postgres server, for tests that run an outbox relay. */
export interface PrivateDatabase {
  url: string;
  drop(): Promise<void>;
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const admin = createPool({ connectionString: serverUrl, logger: silentLogger(), max: 1 });
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * Creates an empty database beside the shared `test` one, for tests that must own what the
 * shared one holds: an outbox relay publishes every unpublished row of its database (in the
 * shared one it would take the events other test files wait for), and a category list or
 * version counter must start empty. The services migrate it themselves. `serverUrl` names
 * the server (any database on it) when it is not the test one (the benchmarks').
 */
export async function createPrivateDatabase(label: string, serverUrl = testServers.databaseUrl): Promise<PrivateDatabase> {
  const name = uniqueId(`aap_test_${label}_`)
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
