import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
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
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { parseAllDocuments, parse } from 'yaml';
import { OPTIONAL_SECRET_ENV, renderK8s, ROOT, SECRET_ENV, SERVICE_NAMES, SERVICES, type ServiceName } from './deploy-files';
import type { K8sObject } from './k8s-object';
import { loadConfig as loadUserConfig } from '@platform/user/config';

const K8S = path.join(ROOT, 'k8s');

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  image: string;
  command?: string[];
  ports: Array<{ name?: string; containerPort: number }>;
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe: { httpGet: { path: string } };
  livenessProbe: { httpGet: { path: string } };
  resources: { requests: { cpu: string; memory: string }; limits: { memory: string } };
}
type Manifest = K8sObject<
  Container,
  {
    scaleTargetRef?: { kind: string; name: string };
    selector?: { matchLabels: Record<string, string> };
    rules?: Array<{ host?: string; http: { paths: Array<{ path: string }> } }>;
    tls?: Array<{ hosts: string[]; secretName: string }>;
  }
>;

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
  PodMonitor,
};

const files = (): string[] => readdirSync(K8S).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
const manifests = (): Manifest[] =>
  files().flatMap((file) => parseAllDocuments(readFileSync(path.join(K8S, file), 'utf8')).map((doc) => doc.toJS() as Manifest));
const find = (kind: string, name: string): Manifest | undefined => manifests().find((m) => m.kind === kind && m.metadata.name === name);
const containerOf = (name: string): Container => find('Deployment', name)?.spec?.template?.spec.containers[0] as Container;

interface PolicyPort {
  protocol?: string;
  port: string | number;
}
interface Policy {
  metadata: { name: string };
  spec: {
    podSelector: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values: string[] }> };
    policyTypes: string[];
    ingress?: Array<{ from?: Array<{ namespaceSelector?: { matchLabels?: Record<string, string> } }>; ports?: PolicyPort[] }>;
    egress?: Array<{ to?: Array<{ ipBlock?: { cidr: string; except?: string[] } }>; ports?: PolicyPort[] }>;
  };
}
const policies = (): Policy[] => manifests().filter((m) => m.kind === 'NetworkPolicy') as unknown as Policy[];

/** Whether a policy's podSelector selects a pod with these labels (matchLabels, and `In` expressions). */
function selects(policy: Policy, labels: Record<string, string>): boolean {
  const { matchLabels = {}, matchExpressions = [] } = policy.spec.podSelector;
  if (matchExpressions.some((expression) => expression.operator !== 'In')) throw new Error(`${policy.metadata.name}: only In is evaluated`);
  return (
    Object.entries(matchLabels).every(([key, value]) => labels[key] === value) &&
    matchExpressions.every((expression) => expression.values.includes(labels[expression.key] ?? ''))
  );
}

/** The `protocol/port` pairs the egress rules let a pod with these labels reach (a rule with no ports would open all: refused). */
function egressPortsOf(labels: Record<string, string>): string[] {
  const rules = policies()
    .filter((policy) => policy.spec.policyTypes.includes('Egress') && selects(policy, labels))
    .flatMap((policy) => policy.spec.egress ?? []);
  return rules
    .flatMap((rule) => {
      if (rule.ports === undefined || rule.ports.length === 0) throw new Error('an egress rule without ports opens every port');
      return rule.ports.map((port) => `${port.protocol ?? 'TCP'}/${port.port}`);
    })
    .sort();
}

/** Secrets optional elsewhere (compose) that k8s requires: METRICS_TOKEN closes every /metrics (issue 45). */
const K8S_REQUIRED = ['METRICS_TOKEN'];
/** The optional secrets an operator may add to the Secret (k8s/README.md), with stand-in values. */
const OPTIONAL_SECRETS = Object.fromEntries(Object.entries(OPTIONAL_SECRET_ENV).filter(([key]) => !K8S_REQUIRED.includes(key)));

/** Whether `service`'s configuration reads the secret `key`: changing it changes (or breaks) what loads. */
function readsSecret(service: ServiceName, key: string): boolean {
  const base = { ...(find('ConfigMap', 'platform-config')?.data ?? {}), ...SECRET_ENV };
  const load = (env: NodeJS.ProcessEnv): object | 'refused' => {
    try {
      return SERVICES[service].config(env);
    } catch {
      return 'refused';
    }
  };
  const value = (SECRET_ENV as Record<string, string>)[key] ?? (OPTIONAL_SECRET_ENV as Record<string, string>)[key] ?? '';
  return !isDeepStrictEqual(load({ ...base, [key]: value }), load({ ...base, [key]: `${value}-changed` })) || load(base) === 'refused';
}

/** The secret keys a container takes from the Secret, by key, with whether each is optional. */
const secretRefsOf = (container: Container): Record<string, boolean> =>
  Object.fromEntries(
    (container.env ?? []).flatMap((variable) => {
      const ref = variable.valueFrom?.secretKeyRef;
      return ref ? [[ref.key, ref.optional === true]] : [];
    }),
  );

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

  it('when the ConfigMap is read, then it holds no secret', () => {
    const data = find('ConfigMap', 'platform-config')?.data ?? {};
    for (const key of Object.keys(SECRET_ENV)) expect(data).not.toHaveProperty(key);
    for (const [key, value] of Object.entries(data)) {
      expect({ key, secretName: /(TOKEN|SECRET|PASSWORD)$/.test(key) }).toEqual({ key, secretName: false });
      expect({ key, credentialsInUrl: /\/\/[^/\s]+:[^/\s]+@/.test(value) }).toEqual({ key, credentialsInUrl: false });
    }
  });

  it('when the services run behind the ingress, then they trust one hop, and only the ingress controller reaches the public port', () => {
    const data = find('ConfigMap', 'platform-config')?.data ?? {};
    expect(loadUserConfig({ ...data, ...SECRET_ENV }).trustProxy).toBe(1);
    const admitted = policies()
      .flatMap((policy) => policy.spec.ingress ?? [])
      .filter((rule) => (rule.ports ?? []).some((port) => port.port === 'http'))
      .flatMap((rule) =>
        (rule.from ?? []).map((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] ?? JSON.stringify(peer)),
      );
    expect(admitted.sort()).toEqual(['ingress-nginx']);
  });

  it('when Prometheus scrapes, then the monitoring namespace is admitted to the `metrics` port alone, which every service serves /metrics on', () => {
    const monitoring = policies()
      .flatMap((policy) => policy.spec.ingress ?? [])
      .filter((rule) =>
        (rule.from ?? []).some((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring'),
      );
    expect(monitoring.flatMap((rule) => rule.ports ?? [])).toEqual([{ protocol: 'TCP', port: 'metrics' }]);
    const data = find('ConfigMap', 'platform-config')?.data ?? {};
    for (const name of SERVICE_NAMES) {
      const metricsPort = containerOf(name).ports.find((port) => port.name === 'metrics')?.containerPort;
      expect({ name, metricsPort }).toEqual({ name, metricsPort: expect.any(Number) });
      // The configuration the pod loads serves /metrics on that port, so the service ports answer 404 there.
      expect({ name, configured: (SERVICES[name].config({ ...data, ...SECRET_ENV }) as { metricsPort?: number }).metricsPort }).toEqual({
        name,
        configured: metricsPort,
      });
    }
  });

  it('when the egress policies apply, then each pod reaches DNS and only the ports of what it uses; webhooks leave on 443 to public addresses only', () => {
    expect(find('NetworkPolicy', 'default-deny-egress')?.spec).toEqual({ podSelector: {}, policyTypes: ['Egress'] });
    const dns = ['UDP/53', 'TCP/53'];
    const postgres = ['TCP/5432', 'TCP/6432'];
    expect(egressPortsOf({ 'app.kubernetes.io/name': 'auth' })).toEqual([...dns, ...postgres, 'TCP/6379'].sort());
    expect(egressPortsOf({ 'app.kubernetes.io/name': 'categorization' })).toEqual([...dns, ...postgres, 'TCP/6379'].sort());
    expect(egressPortsOf({ 'app.kubernetes.io/name': 'user' })).toEqual(
      [...dns, ...postgres, 'TCP/6379', 'TCP/5672', 'TCP/5671', 'TCP/443'].sort(),
    );
    expect(egressPortsOf({ 'app.kubernetes.io/name': 'notifier' })).toEqual(
      [...dns, ...postgres, 'TCP/5672', 'TCP/5671', 'TCP/587', 'TCP/465', 'TCP/25', 'TCP/443'].sort(),
    );
    const job = find('Job', 'migrate') as unknown as { spec: { template: { metadata?: { labels?: Record<string, string> } } } };
    expect(egressPortsOf(job.spec.template.metadata?.labels ?? {})).toEqual([...dns, ...postgres].sort());
    // The pods' labels are the ones the rules above were evaluated with.
    for (const name of SERVICE_NAMES) {
      const deployment = find('Deployment', name) as unknown as { spec: { template: { metadata: { labels: Record<string, string> } } } };
      expect(deployment.spec.template.metadata.labels['app.kubernetes.io/name']).toBe(name);
    }
    const webhookRules = policies()
      .flatMap((policy) => policy.spec.egress ?? [])
      .filter((rule) => (rule.ports ?? []).some((port) => port.port === 443));
    expect(webhookRules).toHaveLength(1);
    const blocks = (webhookRules[0]?.to ?? []).map((peer) => peer.ipBlock);
    expect(blocks.map((block) => block?.cidr)).toEqual(['0.0.0.0/0', '::/0']);
    for (const refused of [
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '127.0.0.0/8',
      '169.254.0.0/16',
      '100.64.0.0/10',
      'fc00::/7',
      'fe80::/10',
    ])
      expect(blocks.flatMap((block) => block?.except ?? [])).toContain(refused);
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

  it('when the network policies apply, then ingress is denied by default', () => {
    expect(find('NetworkPolicy', 'default-deny-ingress')?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
  });

  it('when any manifest is read, then nothing refers to a folder outside the repository', () => {
    for (const file of files()) expect(readFileSync(path.join(K8S, file), 'utf8')).not.toContain('../');
  });

  it.each(SERVICE_NAMES)(
    'when %s is deployed, then it takes from the Secret exactly the secrets its configuration reads, by key',
    (name) => {
      const container = containerOf(name);
      expect(container.envFrom).toEqual([{ configMapRef: { name: 'platform-config' } }]);
      const refs = secretRefsOf(container);
      const required = [...Object.keys(SECRET_ENV), ...K8S_REQUIRED].filter((key) => readsSecret(name, key));
      const optional = Object.keys(OPTIONAL_SECRETS).filter((key) => readsSecret(name, key));
      expect(refs).toEqual(Object.fromEntries([...required.map((key) => [key, false]), ...optional.map((key) => [key, true])]));
      const references = (container.env ?? []).flatMap((variable) => {
        const ref = variable.valueFrom?.secretKeyRef;
        return ref ? [{ variable: variable.name, key: ref.key, secret: ref.name }] : [];
      });
      expect(references).toEqual(Object.keys(refs).map((key) => ({ variable: key, key, secret: 'platform-secrets' })));
    },
  );

  it('when the services are compared, then none takes every secret (the notifier has no admin token, categorization no AMQP)', () => {
    expect(secretRefsOf(containerOf('notifier'))).not.toHaveProperty('ADMIN_TOKEN');
    expect(secretRefsOf(containerOf('categorization'))).not.toHaveProperty('AMQP_URL');
    expect(secretRefsOf(containerOf('auth'))).not.toHaveProperty('SMTP_URL');
  });

  it('when the migration job runs, then it takes only DATABASE_URL from the Secret and can be re-applied once finished', () => {
    const job = manifests().find((m) => m.kind === 'Job') as unknown as {
      spec: { ttlSecondsAfterFinished?: number; template: { spec: { containers: Container[] } } };
    };
    const container = job.spec.template.spec.containers[0] as Container;
    expect(container.envFrom).toBeUndefined();
    expect(secretRefsOf(container)).toEqual({ DATABASE_URL: false });
    const rendered = renderK8s().objects as Array<{ kind: string; spec?: { ttlSecondsAfterFinished?: number } }>;
    const renderedJob = rendered.find((object) => object.kind === 'Job');
    expect(renderedJob?.spec?.ttlSecondsAfterFinished).toEqual(expect.any(Number));
    expect(renderedJob?.spec?.ttlSecondsAfterFinished).toBeLessThanOrEqual(3600);
  });

  it('when the ingress serves, then it terminates TLS for every host it routes, with the Secret k8s/README.md tells how to create', () => {
    const ingress = find('Ingress', 'public');
    const hosts = ingress?.spec?.rules?.map((rule) => rule.host) ?? [];
    expect(hosts.length).toBeGreaterThan(0);
    expect(ingress?.spec?.tls).toEqual([{ hosts, secretName: 'account-access-tls' }]);
    expect(readFileSync(path.join(K8S, 'README.md'), 'utf8')).toContain('create secret tls account-access-tls');
  });

  it('when the usage-API policy applies, then it admits only the named namespaces and labelled pods, and only to the internal port', () => {
    const usage = find('NetworkPolicy', 'usage-api-from-product-apps') as unknown as {
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        ingress: Array<{
          from: Array<{
            namespaceSelector?: {
              matchLabels?: Record<string, string>;
              matchExpressions?: Array<{ key: string; operator: string; values: string[] }>;
            };
            podSelector?: { matchLabels: Record<string, string> };
          }>;
          ports: Array<{ protocol: string; port: string | number }>;
        }>;
      };
    };
    expect(usage.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'user' });
    expect(usage.spec.ingress).toHaveLength(1);
    const [rule] = usage.spec.ingress;
    expect(rule?.ports).toEqual([{ protocol: 'TCP', port: 'internal' }]);
    for (const peer of rule?.from ?? []) {
      // Both selectors in one peer: a pod must carry the label AND run in a named namespace.
      expect(peer.podSelector?.matchLabels).toEqual({ 'account-access.example.com/usage-client': 'true' });
      expect(peer.namespaceSelector?.matchExpressions).toEqual([
        { key: 'kubernetes.io/metadata.name', operator: 'In', values: [expect.any(String)] },
      ]);
      expect(peer.namespaceSelector?.matchLabels).toBeUndefined();
    }
    // Nothing else admits other pods to the internal port.
    const others = manifests().filter((m) => m.kind === 'NetworkPolicy' && m.metadata.name !== 'usage-api-from-product-apps');
    const admitting = others.filter((policy) => JSON.stringify(policy).includes('"internal"')).map((policy) => policy.metadata.name);
    expect(admitting).toEqual([]);
  });

  it('when the user service starts from its manifest, then the internal usage API has a port of its own, the one the Service names `internal`', () => {
    const container = containerOf('user');
    const internalPort = container.ports.find((port) => port.name === 'internal')?.containerPort;
    expect(internalPort).toEqual(expect.any(Number));
    const env = Object.fromEntries((container.env ?? []).filter((v) => v.value !== undefined).map((v) => [v.name, v.value as string]));
    const config = loadUserConfig({ ...(find('ConfigMap', 'platform-config')?.data ?? {}), ...SECRET_ENV, ...env });
    expect(config.internalPort).toBe(internalPort);
    expect(config.internalPort).not.toBe(config.port);
    const service = find('Service', 'user') as unknown as { spec: { ports: Array<{ name: string; targetPort: string }> } };
    expect(service.spec.ports.map((port) => port.name)).toEqual(['http', 'metrics', 'internal']);
  });

  it('when Prometheus Operator scrapes, then the PodMonitor selects every service and names jobs after them', () => {
    const monitor = find('PodMonitor', 'account-access') as unknown as {
      spec: {
        jobLabel: string;
        selector: { matchLabels: Record<string, string> };
        podMetricsEndpoints: Array<{ port: string; path: string; authorization?: unknown }>;
      };
    };
    expect(monitor.spec.jobLabel).toBe('app.kubernetes.io/name');
    // /metrics is closed (METRICS_TOKEN, required of every Deployment): each scrape presents it.
    for (const endpoint of monitor.spec.podMetricsEndpoints) {
      expect(endpoint.authorization).toEqual({ type: 'Bearer', credentials: { name: 'platform-secrets', key: 'METRICS_TOKEN' } });
    }
    for (const name of SERVICE_NAMES) expect(secretRefsOf(containerOf(name))).toHaveProperty('METRICS_TOKEN', false);
    expect(monitor.spec.podMetricsEndpoints.map((endpoint) => [endpoint.port, endpoint.path])).toEqual([['metrics', '/metrics']]);
    const deployments = manifests().filter((m) => m.kind === 'Deployment') as unknown as Array<{
      metadata: { name: string };
      spec: { template: { metadata: { labels: Record<string, string> } } };
    }>;
    expect(deployments).toHaveLength(SERVICE_NAMES.length);
    for (const deployment of deployments) {
      expect(deployment.spec.template.metadata.labels).toMatchObject({
        ...monitor.spec.selector.matchLabels,
        'app.kubernetes.io/name': deployment.metadata.name,
      });
    }
  });

  it('when the operator sets a registry and a release in kustomize `images:`, then every workload of each service runs it', () => {
    const kustomization = parse(readFileSync(path.join(K8S, 'kustomization.yaml'), 'utf8')) as { images: Array<{ name: string }> };
    expect(kustomization.images.map((image) => image.name).sort()).toEqual(SERVICE_NAMES.map((name) => `account-access-${name}`).sort());
    const copy = mkdtempSync(path.join(os.tmpdir(), 'k8s-images-'));
    try {
      cpSync(K8S, copy, { recursive: true });
      const text = readFileSync(path.join(copy, 'kustomization.yaml'), 'utf8').replace(
        /\{ name: (account-access-[a-z]+), newName: [^,]+, newTag: [^ }]+ \}/g,
        '{ name: $1, newName: registry.example.com/$1, newTag: 9.9.9 }',
      );
      writeFileSync(path.join(copy, 'kustomization.yaml'), text);
      const rendered = spawnSync('kubectl', ['kustomize', copy], { encoding: 'utf8' });
      expect(rendered.status).toBe(0);
      const images = parseAllDocuments(rendered.stdout)
        .map((doc) => doc.toJS() as Manifest)
        .filter((m) => m.kind === 'Deployment' || m.kind === 'Job')
        .map((m) => m.spec?.template?.spec.containers[0]?.image);
      expect(images).toHaveLength(SERVICE_NAMES.length + 1);
      for (const image of images) expect(image).toMatch(/^registry\.example\.com\/account-access-[a-z]+:9\.9\.9$/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
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
      // A key the Secret does not hold leaves the variable unset (optional keys).
      const value = ref
        ? secrets[`${ref.name}/${ref.key}`]
        : (entry.value ?? '').replace(/\$\(([A-Z_]+)\)/g, (_, name: string) => env[name] ?? '');
      if (value !== undefined) env[entry.name] = value;
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
      const platformSecrets = Object.fromEntries(Object.entries(secrets).map(([key, value]) => [`platform-secrets/${key}`, value]));
      const env = expand(containers.get(name)?.env ?? [], { ...platformSecrets, 'redis-cluster/redis-password': 'chart-password' });
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
    expect(containers.get('notifier')?.env).toEqual(find('Deployment', 'notifier')?.spec?.template?.spec.containers[0]?.env);
  });
});
