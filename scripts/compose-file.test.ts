import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { compose, composeText as text, dotEnv, interpolate, ROOT, SERVICE_NAMES, SERVICES, type ComposeService } from './deploy-files';

describe('docker-compose.yml', () => {
  it('when linted with dclint, then it has no errors', () => {
    const result = spawnSync(path.join(ROOT, 'node_modules/.bin/dclint'), ['-q', 'docker-compose.yml'], { cwd: ROOT, encoding: 'utf8' });
    expect((result.stdout + result.stderr).trim()).toBe('');
    expect(result.status).toBe(0);
  });

  it('when a secret is referenced, then it has no default: compose refuses to start without it', () => {
    for (const name of ['ADMIN_TOKEN', 'SERVICE_JWT_SECRET', 'POSTGRES_PASSWORD', 'RABBITMQ_PASSWORD']) {
      const uses = [...text.matchAll(new RegExp(`\\$\\{${name}(:[-?][^}]*)?\\}`, 'g'))].map((match) => match[1] ?? '');
      expect(uses.length).toBeGreaterThan(0);
      for (const use of uses) expect(use).toMatch(/^:\?set /);
      expect(dotEnv).toHaveProperty(name);
    }
  });

  it.each(SERVICE_NAMES)('when %s starts with its compose environment, then its image is its own and its configuration loads', (name) => {
    const definition = compose.services[name] as ComposeService;
    expect(definition.build).toEqual({ context: '.', args: { SERVICE: name } });
    expect(definition.command).toBeUndefined(); // the image's CMD: node dist/main.js
    const environment = Object.fromEntries(
      Object.entries(definition.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
    );
    expect(SERVICES[name].load(environment)).toBe(SERVICES[name].port);
    expect(definition.ports).toContain(`127.0.0.1:${SERVICES[name].port}:${SERVICES[name].port}`);
    expect(definition.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
  });

  it('when Postgres and RabbitMQ start, then their credentials are the ones the services connect with', () => {
    const postgres = compose.services.postgres?.environment ?? {};
    const rabbitmq = compose.services.rabbitmq?.environment ?? {};
    const user = Object.fromEntries(
      Object.entries(compose.services.user?.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
    );
    const database = new URL(user.DATABASE_URL as string);
    expect([database.username, database.password, database.pathname.slice(1)]).toEqual(
      [postgres.POSTGRES_USER, postgres.POSTGRES_PASSWORD, postgres.POSTGRES_DB].map((value) => interpolate(String(value))),
    );
    const amqp = new URL(user.AMQP_URL as string);
    expect([amqp.username, amqp.password]).toEqual(
      [rabbitmq.RABBITMQ_DEFAULT_USER, rabbitmq.RABBITMQ_DEFAULT_PASS].map((value) => interpolate(String(value))),
    );
  });

  it('when migrations run, then the user image applies them before the services start', () => {
    expect(compose.services.migrate).toMatchObject({ build: { args: { SERVICE: 'user' } }, command: ['node', 'dist/migrate.js'] });
  });

  it('when alert e-mails are sent, then mailpit catches them and shows them on 127.0.0.1:8025', () => {
    expect(compose.services.mailpit?.ports).toContain('127.0.0.1:8025:8025');
    expect(compose.services.notifier?.environment?.SMTP_URL).toBe('smtp://mailpit:1025');
  });

  it('when volumes are mounted, then nothing comes from outside the repository', () => {
    for (const definition of Object.values(compose.services))
      for (const volume of definition.volumes ?? []) expect(volume).not.toMatch(/^\.\.?\//);
    expect(text).not.toContain('../');
    expect(existsSync(path.join(ROOT, '.env.example'))).toBe(true);
  });
});
