import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPool, migrate } from '@platform/db';
import { userMigrations } from '@platform/user/migrations';
import { BALANCE_CHANGED, createInProcessEventBus } from '@platform/events';
import { anAccount, eventually, silentLogger, testServers, uniqueId } from '@platform/testing';
import { loadConfig } from '../src/config';
import { runNotifierService } from '../src/service';
import { aChange } from './harness';

describe('notifier: embedded mode (in-process bus, e-mails as files)', () => {
  it('when a crossing is published on the in-process bus, then one .eml with text and HTML parts is written to the outbox folder', async () => {
    const pool = createPool({ connectionString: testServers.databaseUrl, logger: silentLogger() });
    const bus = createInProcessEventBus();
    const outbox = await mkdtemp(path.join(os.tmpdir(), 'notifier-outbox-'));
    try {
      await migrate(pool, [userMigrations], silentLogger());
      const config = loadConfig(
        {
          NOTIFIER_PORT: '0',
          OUTBOX_DIR: outbox,
          NOTIFIER_QUEUE: uniqueId('embedded.notifier.'),
          NOTIFIER_MAIL_POLL_MS: '100',
          USER_URL: 'http://127.0.0.1:9999',
        },
        { requireInfrastructure: false },
      );
      const service = await runNotifierService({ config, logger: silentLogger(), given: { pool, bus } });
      try {
        await service.consuming;
        const account = await anAccount(pool, { credits: { 1: 12 } });
        const crossing = aChange(account, 12, 4);
        await bus.publish(BALANCE_CHANGED, crossing);
        await bus.publish(BALANCE_CHANGED, crossing);

        const files = await eventually(async () => {
          const names = (await readdir(outbox)).filter((name) => name.endsWith('.eml'));
          return names.length > 0 ? names : undefined;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await readdir(outbox)).toEqual(files);
        expect(files).toEqual([`low-balance-alert.${crossing.id}@localhost.eml`]);
        const eml = await readFile(path.join(outbox, files[0] as string), 'utf8');
        expect(eml).toContain('Subject: Low balance alert: WHOIS API has 4 credits left');
        expect(eml).toContain(`To: ${account.email}`);
        expect(eml).toContain('Content-Type: text/plain');
        expect(eml).toContain('Content-Type: text/html');
        // The text part is quoted-printable: its soft line breaks (`=` at a line's end) are not text.
        expect(eml.replace(/=\r?\n/g, '')).toContain('http://127.0.0.1:9999/account/#alerts');
        expect(eml).toMatch(new RegExp(`Message-ID:\\s+<low-balance-alert\\.${crossing.id}@localhost>`));
      } finally {
        await service.stop();
      }
    } finally {
      await bus.close();
      await pool.end();
      await rm(outbox, { recursive: true, force: true });
    }
  });
});
