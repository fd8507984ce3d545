import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
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

  describe('the observability profile', () => {
    const observability = ['prometheus', 'grafana'];

    it('when the stack starts without a profile, then only Prometheus and Grafana are left out', () => {
      const profiled = Object.entries(compose.services)
        .filter(([, definition]) => definition.profiles !== undefined)
        .map(([name]) => name);
      expect(profiled.sort()).toEqual([...observability].sort());
      for (const name of observability) expect(compose.services[name]?.profiles).toEqual(['observability']);
    });

    /** `COPY <sources> <target>` lines of an observability image's Dockerfile, sources resolved against its folder. */
    const copies = (folder: string): Array<{ sources: string[]; target: string }> =>
      readFileSync(path.join(ROOT, folder, 'Dockerfile'), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('COPY '))
        .map((line) => {
          const words = line.split(/\s+/).slice(1);
          return { sources: words.slice(0, -1).map((source) => path.join(folder, source)), target: words.at(-1) ?? '' };
        });

    it('when Prometheus starts, then it scrapes every service on its port and evaluates the alert rules of deploy/prometheus', () => {
      expect(compose.services.prometheus?.build as unknown).toBe('deploy/prometheus');
      expect(copies('deploy/prometheus')).toEqual([
        { sources: ['deploy/prometheus/prometheus.yml', 'deploy/prometheus/alerts.yml'], target: '/etc/prometheus/' },
      ]);
      const config = parse(readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
        rule_files: string[];
        scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
      };
      expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
      expect(config.scrape_configs.map((job) => [job.job_name, job.static_configs[0]?.targets])).toEqual(
        SERVICE_NAMES.map((name) => [name, [`${name}:${SERVICES[name].port}`]]),
      );
      expect(compose.services.prometheus?.ports).toEqual(['127.0.0.1:9090:9090']);
    });

    it('when Grafana starts, then it has the Prometheus datasource and the platform dashboard, and no login to guess', () => {
      const grafana = compose.services.grafana as ComposeService;
      expect(grafana.build as unknown).toBe('deploy/grafana');
      expect(copies('deploy/grafana')).toEqual([
        { sources: ['deploy/grafana/provisioning/'], target: '/etc/grafana/provisioning/' },
        { sources: ['deploy/grafana/dashboards/'], target: '/var/lib/grafana/dashboards/' },
      ]);
      const datasources = parse(readFileSync(path.join(ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as {
        datasources: Array<{ uid: string; url: string }>;
      };
      expect(datasources.datasources).toEqual([expect.objectContaining({ uid: 'prometheus', url: 'http://prometheus:9090' })]);
      const provider = parse(readFileSync(path.join(ROOT, 'deploy/grafana/provisioning/dashboards/account-access.yml'), 'utf8')) as {
        providers: Array<{ options: { path: string } }>;
      };
      expect(provider.providers[0]?.options.path).toBe('/var/lib/grafana/dashboards');
      expect(existsSync(path.join(ROOT, 'deploy/grafana/dashboards/account-access-platform.json'))).toBe(true);
      expect(grafana.environment).toMatchObject({ GF_AUTH_ANONYMOUS_ORG_ROLE: 'Viewer', GF_AUTH_DISABLE_LOGIN_FORM: 'true' });
      expect(grafana.ports).toEqual(['127.0.0.1:3000:3000']);
    });
  });
});
