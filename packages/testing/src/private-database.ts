import { createPool } from '@platform/db';
import { silentLogger } from './logs';
import { testServers, uniqueId } from './servers';

/** A database of its own on the shared Postgres server, for tests that run an outbox relay. */
export interface PrivateDatabase {
  url: string;
  drop(): Promise<void>;
}

async function onServer(sql: string): Promise<void> {
  const admin = createPool({ connectionString: testServers.databaseUrl, logger: silentLogger(), max: 1 });
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
 * version counter must start empty. The services migrate it themselves.
 */
export async function createPrivateDatabase(label: string): Promise<PrivateDatabase> {
  const name = uniqueId(`aap_test_${label}_`)
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
  await onServer(`CREATE DATABASE "${name}"`);
  const url = new URL(testServers.databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
