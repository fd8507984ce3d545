/** A Kubernetes object as the deploy tests read it: its kind, name, ConfigMap data, and the parts of its spec a test looks at. */
export interface K8sObject<Container, Spec = object> {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: { template?: { spec: { containers: Container[] } } } & Spec;
}
