/**
 * The Kubernetes objects as `kubectl kustomize k8s` renders them, docker-compose.yml, the
 * Dockerfile and the services' own configuration agree: the same image per service, the port it
 * listens on, the health paths its image checks, and only variable names some service reads.
 * (scripts/k8s-manifests.test.ts checks each manifest against the Kubernetes schemas.)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { DockerfileParser } from 'dockerfile-ast';
import { compose, composeEnvironment, OPTIONAL_SECRET_ENV, renderK8s, ROOT, SECRET_ENV, SERVICE_NAMES, SERVICES } from './deploy-files';
import type { K8sObject } from './k8s-object';

interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }>;
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}
type Rendered = K8sObject<
  Container,
  {
    ports?: Array<{ name?: string; port: number; targetPort?: string | number }>;
    rules?: Array<{ http: { paths: Array<{ backend: { service: { name: string; port: { name?: string; number?: number } } } }> } }>;
  }
>;

const rendered = renderK8s();
const objects = rendered.objects as Rendered[];
const object = (kind: string, name: string) => objects.find((item) => item.kind === kind && item.metadata.name === name);
const container = (kind: string, name: string) => object(kind, name)?.spec?.template?.spec.containers[0] as Container;
const configMap = object('ConfigMap', 'platform-config')?.data ?? {};
/** The Secret's keys, as k8s/README.md tells the operator to create it. */
const secretKeys = [...readFileSync(path.join(ROOT, 'k8s/README.md'), 'utf8').matchAll(/--from-literal=([A-Z_]+)=/g)].map(
  (match) => match[1] as string,
);

const dockerfile = DockerfileParser.parse(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const finalStage = dockerfile.getInstructions().filter((instruction) => {
  const froms = dockerfile.getFROMs();
  return instruction.getRange().start.line > (froms[froms.length - 1]?.getRange().start.line ?? 0);
});
const healthcheck = finalStage.find((instruction) => instruction.getKeyword() === 'HEALTHCHECK')?.getArgumentsContent() ?? '';

/** Names the services' configuration reads (or that only the tools read, with why). */
const READ_BY_TOOLS_ONLY = new Set(['CATEGORIZATION_URL']); // pnpm client's default base URL (README configuration table)

/** A value of the same kind that differs: a number plus one, anything else with a suffix. */
const changed = (value: string) => (/^\d+$/.test(value) ? String(Number(value) + 1) : `${value}x`);

/** Whether some service's configuration reads `name`: changing it changes (or breaks) what loads. */
function readBySomeService(name: string, base: Record<string, string>): boolean {
  return SERVICE_NAMES.some((service) => {
    const before = SERVICES[service].config(base);
    try {
      return !isDeepStrictEqual(SERVICES[service].config({ ...base, [name]: changed(base[name] ?? '1') }), before);
    } catch {
      return true;
    }
  });
}

describe('Kubernetes, compose, Dockerfile and the services agree', () => {
  it('when kustomize renders k8s/, then it succeeds', () => {
    expect(rendered.stderr).toBe('');
    expect(rendered.status).toBe(0);
    expect(objects.length).toBeGreaterThan(0);
  });

  it.each(SERVICE_NAMES)(
    'when %s runs, then k8s runs the image compose builds, on the port it listens on and compose publishes',
    (name) => {
      const deployed = container('Deployment', name);
      const [image, tag] = deployed.image.split(':');
      expect({ image, tag: typeof tag }).toEqual({ image: `account-access-${name}`, tag: 'string' });
      expect(compose.services[name]?.build?.args.SERVICE).toBe(name);
      expect(deployed.ports?.[0]?.containerPort).toBe(SERVICES[name].port);
      expect(compose.services[name]?.ports).toEqual([`127.0.0.1:${SERVICES[name].port}:${SERVICES[name].port}`]);
      // Every container port (the user service's `internal` one too) is a port of the Service, by name.
      const service = object('Service', name)?.spec?.ports ?? [];
      expect(service.map((port) => ({ port: port.port, targetPort: port.targetPort }))).toEqual(
        (deployed.ports ?? []).map((port) => ({ port: port.containerPort, targetPort: port.name })),
      );
    },
  );

  it('when every workload is rendered, then all run one release of the images', () => {
    const workloads = objects.filter((item) => item.kind === 'Deployment' || item.kind === 'Job');
    const tags = new Set(workloads.flatMap((item) => item.spec?.template?.spec.containers.map((c) => c.image.split(':')[1]) ?? []));
    expect(workloads).toHaveLength(SERVICE_NAMES.length + 1);
    expect(tags.size).toBe(1);
  });

  it('when migrations run, then the k8s Job and compose run the same image and command', () => {
    const job = container('Job', 'migrate');
    expect(job.image.split(':')[0]).toBe(`account-access-${compose.services.migrate?.build?.args.SERVICE ?? '?'}`);
    expect(job.command).toEqual(compose.services.migrate?.command);
  });

  it.each(SERVICE_NAMES)('when %s is probed, then readiness asks the path the image health check asks, on its own port', (name) => {
    const deployed = container('Deployment', name);
    const readyPath = /\/health\/[a-z]+/.exec(healthcheck)?.[0];
    expect(readyPath).toBe('/health/ready');
    expect(deployed.readinessProbe?.httpGet.path).toBe(readyPath);
    expect(deployed.livenessProbe?.httpGet.path).toBe('/health/live');
    expect(deployed.startupProbe?.httpGet.path).toBe('/health/live');
    for (const probe of [deployed.readinessProbe, deployed.livenessProbe, deployed.startupProbe])
      expect([deployed.ports?.[0]?.name, SERVICES[name].port]).toContain(probe?.httpGet.port);
    // The image's health check finds the port by service name: the same default ports.
    expect(healthcheck).toContain(`${name}:${SERVICES[name].port}`);
    const exposed = finalStage.find((instruction) => instruction.getKeyword() === 'EXPOSE')?.getArgumentsContent() ?? '';
    expect(exposed.split(/\s+/)).toContain(String(SERVICES[name].port));
  });

  it('when the ingress routes, then every backend is a rendered Service port', () => {
    const backends =
      object('Ingress', 'public')?.spec?.rules?.flatMap((rule) => rule.http.paths.map((entry) => entry.backend.service)) ?? [];
    expect(backends.length).toBeGreaterThan(0);
    for (const backend of backends) {
      const ports = object('Service', backend.name)?.spec?.ports ?? [];
      expect({ backend, found: ports.some((port) => port.name === backend.port.name || port.port === backend.port.number) }).toEqual({
        backend,
        found: true,
      });
    }
  });

  it('when the operator creates the Secret, then it holds what the checks stand in for and every deployment reads the ConfigMap and keys of it', () => {
    // k8s also requires METRICS_TOKEN (optional in compose): /metrics is closed there.
    expect([...secretKeys].sort()).toEqual([...Object.keys(SECRET_ENV), 'METRICS_TOKEN'].sort());
    for (const name of SERVICE_NAMES) {
      const deployed = container('Deployment', name);
      expect(deployed.envFrom).toEqual([{ configMapRef: { name: 'platform-config' } }]);
      // The keys it takes (scripts/k8s-manifests.test.ts checks they are the ones it reads); OPTIONAL_SECRET_ENV's are optional.
      const keys = (deployed.env ?? []).flatMap((variable) =>
        variable.valueFrom?.secretKeyRef ? [variable.valueFrom.secretKeyRef.key] : [],
      );
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys)
        expect({ key, known: [...secretKeys, ...Object.keys(OPTIONAL_SECRET_ENV)].includes(key) }).toEqual({ key, known: true });
    }
  });

  it('when compose gives a service a variable, then k8s gives it too', () => {
    const k8sNames = new Set([...Object.keys(configMap), ...secretKeys, ...Object.keys(OPTIONAL_SECRET_ENV)]);
    for (const name of SERVICE_NAMES)
      for (const variable of Object.keys(composeEnvironment(name)))
        expect({ variable, inK8s: k8sNames.has(variable) }).toEqual({ variable, inK8s: true });
  });

  it('when k8s gives a variable, then some service reads it', () => {
    const base = { ...configMap, ...SECRET_ENV };
    for (const variable of Object.keys(base).filter((key) => !READ_BY_TOOLS_ONLY.has(key)))
      expect({ variable, read: readBySomeService(variable, base) }).toEqual({ variable, read: true });
  });

  it('when compose gives a variable, then some service reads it', () => {
    for (const name of SERVICE_NAMES) {
      const base = composeEnvironment(name);
      for (const variable of Object.keys(base).filter((key) => !READ_BY_TOOLS_ONLY.has(key)))
        expect({ service: name, variable, read: readBySomeService(variable, base) }).toEqual({ service: name, variable, read: true });
    }
  });

  it('when a variable name is misspelt, then the check above notices', () => {
    const base = { ...configMap, ...SECRET_ENV, SMTP_ULR: 'smtp://mail:25' };
    expect(readBySomeService('SMTP_ULR', base)).toBe(false);
    expect(readBySomeService('SMTP_URL', base)).toBe(true);
  });
});
