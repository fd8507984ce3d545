import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { parseAllDocuments, parse } from 'yaml';
import { ROOT, SECRET_ENV, SERVICE_NAMES, SERVICES } from './deploy-files';

const K8S = path.join(ROOT, 'k8s');

interface Container {
  image: string;
  command?: string[];
  ports: Array<{ containerPort: number }>;
  readinessProbe: { httpGet: { path: string } };
  livenessProbe: { httpGet: { path: string } };
  resources: { requests: { cpu: string; memory: string }; limits: { memory: string } };
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    template?: { spec: { containers: Container[] } };
    scaleTargetRef?: { kind: string; name: string };
    selector?: { matchLabels: Record<string, string> };
    rules?: Array<{ http: { paths: Array<{ path: string }> } }>;
  };
}

const models: Record<string, new (data: never) => { validate(): void }> = {
  Namespace,
  ConfigMap,
  Service,
  Deployment,
  Job,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  Ingress,
  NetworkPolicy,
  PrometheusRule,
};

const files = (): string[] => readdirSync(K8S).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
const manifests = (): Manifest[] =>
  files().flatMap((file) => parseAllDocuments(readFileSync(path.join(K8S, file), 'utf8')).map((doc) => doc.toJS() as Manifest));
const find = (kind: string, name: string): Manifest | undefined => manifests().find((m) => m.kind === kind && m.metadata.name === name);
const containerOf = (name: string): Container => find('Deployment', name)?.spec?.template?.spec.containers[0] as Container;

describe('Kubernetes manifests', () => {
  it('when each manifest is checked against the Kubernetes schema, then it is valid', () => {
    const all = manifests();
    expect(all.length).toBeGreaterThanOrEqual(25);
    for (const manifest of all) {
      const Model = models[manifest.kind];
      expect({ kind: manifest.kind, known: Model !== undefined }).toEqual({ kind: manifest.kind, known: true });
      expect(() => new (Model as new (data: Manifest) => { validate(): void })(manifest).validate()).not.toThrow();
    }
  });

  it('when kustomize renders the folder, then it succeeds and every manifest file is listed', () => {
    const kustomization = parse(readFileSync(path.join(K8S, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual(files().sort());
    const rendered = spawnSync('kubectl', ['kustomize', K8S], { encoding: 'utf8' });
    expect(rendered.stderr).toBe('');
    expect(rendered.status).toBe(0);
    expect(parseAllDocuments(rendered.stdout)).toHaveLength(manifests().length);
  });

  it.each(SERVICE_NAMES)('when %s is deployed, then it runs its own image with probes, resources, an HPA and a PDB', (name) => {
    const container = containerOf(name);
    expect(container.image).toMatch(new RegExp(`^account-access-${name}:`));
    expect(container.command).toBeUndefined(); // the image's CMD: node dist/main.js
    expect(container.ports[0]?.containerPort).toBe(SERVICES[name].port);
    expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
    expect(container.livenessProbe.httpGet.path).toBe('/health/live');
    expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toEqual(expect.any(String));
    expect(find('HorizontalPodAutoscaler', name)?.spec?.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    expect(find('PodDisruptionBudget', name)?.spec?.selector?.matchLabels).toEqual({ 'app.kubernetes.io/name': name });
  });

  it('when a deployment starts with the ConfigMap and the Secret, then its service configuration loads on the container port', () => {
    const data = find('ConfigMap', 'platform-config')?.data ?? {};
    for (const name of SERVICE_NAMES) expect(SERVICES[name].load({ ...data, ...SECRET_ENV })).toBe(SERVICES[name].port);
  });

  it('when the ConfigMap is read, then it holds no secret and does not trust X-Forwarded-For by default', () => {
    const data = find('ConfigMap', 'platform-config')?.data ?? {};
    for (const key of Object.keys(SECRET_ENV)) expect(data).not.toHaveProperty(key);
    for (const [key, value] of Object.entries(data)) {
      expect({ key, secretName: /(TOKEN|SECRET|PASSWORD)$/.test(key) }).toEqual({ key, secretName: false });
      expect({ key, credentialsInUrl: /\/\/[^/\s]+:[^/\s]+@/.test(value) }).toEqual({ key, credentialsInUrl: false });
    }
    expect(data.TRUST_PROXY).toBe('false');
  });

  it('when the migration job runs, then it is the user image applying its migrations', () => {
    const job = manifests().find((m) => m.kind === 'Job') as unknown as { spec: { template: { spec: { containers: Container[] } } } };
    expect(job.spec.template.spec.containers[0]).toMatchObject({
      image: expect.stringMatching(/^account-access-user:/),
      command: ['node', 'dist/migrate.js'],
    });
  });

  it('when the ingress routes, then only the public endpoints are reachable from outside', () => {
    const paths = find('Ingress', 'public')?.spec?.rules?.flatMap((rule) => rule.http.paths.map((entry) => entry.path)) ?? [];
    expect(paths.sort()).toEqual(
      [
        '/.well-known/oauth-authorization-server',
        '/account',
        '/api/v2/categories',
        '/oauth/',
        '/service/account-balance',
        '/user-service/',
      ].sort(),
    );
    for (const path of paths) expect(path).not.toMatch(/admin|internal|metrics|health/);
  });

  it('when the network policies apply, then ingress is denied by default and the user port is open to product apps', () => {
    expect(find('NetworkPolicy', 'default-deny-ingress')?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const usage = find('NetworkPolicy', 'usage-api-from-product-apps') as unknown as {
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        ingress: Array<{ from: Array<{ podSelector: { matchLabels: Record<string, string> } }> }>;
      };
    };
    expect(usage.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'user' });
    expect(usage.spec.ingress[0]?.from[0]?.podSelector.matchLabels).toEqual({ 'account-access.example.com/usage-client': 'true' });
  });

  it('when any manifest is read, then nothing refers to a folder outside the repository', () => {
    for (const file of files()) expect(readFileSync(path.join(K8S, file), 'utf8')).not.toContain('../');
  });
});

interface EnvEntry {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}

describe('Kubernetes overlay ha (a Redis Cluster, REDIS_CLUSTER_NODES)', () => {
  const HA = path.join(K8S, 'overlays/ha');
  const render = () => spawnSync('kubectl', ['kustomize', '--load-restrictor=LoadRestrictionsNone', HA], { encoding: 'utf8' });
  const rendered = (): Manifest[] => parseAllDocuments(render().stdout).map((doc) => doc.toJS() as Manifest);
  /** A container's env as Kubernetes expands it: secretKeyRef values from `secrets`, then $(NAME) references. */
  const expand = (entries: EnvEntry[], secrets: Record<string, string>): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const entry of entries) {
      const ref = entry.valueFrom?.secretKeyRef;
      env[entry.name] = ref
        ? (secrets[`${ref.name}/${ref.key}`] ?? '')
        : (entry.value ?? '').replace(/\$\(([A-Z_]+)\)/g, (_, name: string) => env[name] ?? '');
    }
    return env;
  };

  it('when kustomize renders the overlay, then it succeeds with every base file and nothing else', () => {
    const result = render();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const base = parse(readFileSync(path.join(K8S, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    const overlay = parse(readFileSync(path.join(HA, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    expect(overlay.resources).toEqual(base.resources.map((file) => `../../${file}`));
    const names = (all: Manifest[]): string[] => all.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    expect(names(rendered())).toEqual(names(manifests()));
  });

  it('when the Redis services start from it, then they use the Bitnami redis-cluster nodes with the chart’s password, and the notifier is unchanged', () => {
    const { REDIS_URL: _single, ...secrets } = SECRET_ENV;
    const data = find('ConfigMap', 'platform-config')?.data ?? {};
    const containers = new Map(
      rendered()
        .filter((m) => m.kind === 'Deployment')
        .map((m) => [m.metadata.name, m.spec?.template?.spec.containers[0] as Container & { env?: EnvEntry[] }]),
    );
    for (const name of ['auth', 'user', 'categorization'] as const) {
      const env = expand(containers.get(name)?.env ?? [], { 'redis-cluster/redis-password': 'chart-password' });
      const config = SERVICES[name].config({ ...data, ...secrets, ...env }) as { redisUrl?: string; redisClusterNodes?: unknown[] };
      expect(config.redisUrl).toBeUndefined();
      expect(config.redisClusterNodes).toEqual(
        [0, 1, 2, 3, 4, 5].map((index) => ({
          host: `redis-cluster-${index}.redis-cluster-headless.redis.svc.cluster.local`,
          port: 6379,
          ...(index === 0 ? { username: 'default', password: 'chart-password' } : {}),
        })),
      );
      // A Secret that still names REDIS_URL is refused at start, not silently overridden.
      expect(() => SERVICES[name].config({ ...data, ...SECRET_ENV, ...env })).toThrow(
        /REDIS_CLUSTER_NODES: set REDIS_URL or REDIS_CLUSTER_NODES, not both/,
      );
    }
    expect(containers.get('notifier')?.env).toBeUndefined();
  });
});
