import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { parseAllDocuments, parse } from 'yaml';
import { loadConfig as loadAuthConfig } from '../services/auth/src/config';
import { loadConfig as loadCategorizationConfig } from '../services/categorization/src/config';
import { loadConfig as loadNotifierConfig } from '../services/notifier/src/config';
import { loadConfig as loadUserConfig } from '../services/user/src/config';

const ROOT = path.resolve(__dirname, '..');
const K8S = path.join(ROOT, 'k8s');

type Manifest = { kind: string; metadata: { name: string }; [key: string]: unknown };

const models: Record<string, new (data: never) => { validate(): void }> = {
  Namespace,
  ConfigMap,
  Service,
  Deployment,
  Job,
};

/** Each service's own config loader, and the port it must listen on. */
const services = {
  auth: { load: (env: NodeJS.ProcessEnv) => loadAuthConfig(env).port, port: 8081 },
  user: { load: (env: NodeJS.ProcessEnv) => loadUserConfig(env).port, port: 8082 },
  categorization: { load: (env: NodeJS.ProcessEnv) => loadCategorizationConfig(env).port, port: 8083 },
  notifier: { load: (env: NodeJS.ProcessEnv) => loadNotifierConfig(env).port, port: 8084 },
};

// The keys k8s/README.md tells the operator to put into the Secret, with stand-in values.
const SECRET_ENV = {
  DATABASE_URL: 'postgres://app:pw@postgres:5432/platform',
  REDIS_URL: 'redis://redis:6379',
  AMQP_URL: 'amqp://app:pw@rabbitmq:5672',
  SMTP_URL: 'smtp://mail:25',
  ADMIN_TOKEN: 'a'.repeat(48),
  SERVICE_JWT_SECRET: 'b'.repeat(64),
};

function k8sManifests(): Manifest[] {
  return readdirSync(K8S)
    .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
    .flatMap((file) => parseAllDocuments(readFileSync(path.join(K8S, file), 'utf8')).map((doc) => doc.toJS() as Manifest));
}

describe('Kubernetes manifests', () => {
  it('when each manifest is checked against the Kubernetes schema, then it is valid', () => {
    const manifests = k8sManifests();
    expect(manifests.length).toBeGreaterThanOrEqual(11);
    for (const manifest of manifests) {
      const Model = models[manifest.kind];
      expect(Model).toBeDefined();
      expect(() => new (Model as new (data: Manifest) => { validate(): void })(manifest).validate()).not.toThrow();
    }
  });

  it('when kustomize builds the folder, then every manifest file is listed', () => {
    const kustomization = parse(readFileSync(path.join(K8S, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    const files = readdirSync(K8S).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
  });

  it('when a deployment starts with the ConfigMap and the Secret, then its service configuration loads and listens on the container port', () => {
    const manifests = k8sManifests();
    const configMap = manifests.find((m) => m.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    for (const [name, service] of Object.entries(services)) {
      const deployment = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === name) as unknown as {
        spec: {
          template: {
            spec: {
              containers: Array<{
                command: string[];
                ports: Array<{ containerPort: number }>;
                readinessProbe: { httpGet: { path: string } };
              }>;
            };
          };
        };
      };
      const container = deployment.spec.template.spec.containers[0];
      expect(container?.command).toEqual(['pnpm', `start:${name}`]);
      expect(container?.ports[0]?.containerPort).toBe(service.port);
      expect(container?.readinessProbe.httpGet.path).toBe('/health/ready');
      expect(service.load({ ...configMap.data, ...SECRET_ENV })).toBe(service.port);
    }
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string>; ports?: string[] }>;
  };

  it('when linted with dclint, then it has no errors', () => {
    const result = spawnSync(path.join(ROOT, 'node_modules/.bin/dclint'), ['-q', 'docker-compose.yml'], { cwd: ROOT, encoding: 'utf8' });
    expect((result.stdout + result.stderr).trim()).toBe('');
    expect(result.status).toBe(0);
  });

  it('when each service starts with its compose environment, then its configuration loads and its port is published', () => {
    for (const [name, service] of Object.entries(services)) {
      const definition = compose.services[name];
      expect(definition?.command).toEqual(['pnpm', `start:${name}`]);
      const environment = Object.fromEntries(
        Object.entries(definition?.environment ?? {}).map(([key, value]) => [key, String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]),
      );
      expect(service.load(environment)).toBe(service.port);
      expect(definition?.ports).toContain(`127.0.0.1:${service.port}:${service.port}`);
    }
  });

  it('when migrations run, then they run before the services start', () => {
    expect(compose.services.migrate?.command).toEqual(['pnpm', 'migrate']);
  });
});
