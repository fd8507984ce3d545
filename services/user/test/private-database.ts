import { createPool } from '@platform/db';
import { silentLogger, testServers, uniqueId } from '@platform/testing';

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
 * Creates an empty database beside the shared `test` one. A relay publishes every unpublished
 * row of its database's outbox; in the shared database it would also publish (to its own test
 * exchange) the events other test files are waiting for. The services migrate it themselves.
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
