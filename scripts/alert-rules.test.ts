import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './deploy-files';

interface Rule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleGroups {
  groups: Array<{ name: string; rules: Rule[] }>;
}

const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const alerts = parse(read('deploy/prometheus/alerts.yml')) as RuleGroups;
const rules = alerts.groups.flatMap((group) => group.rules);

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('alert rules', () => {
  it('when the rules are read, then the issue’s five alerts are there', () => {
    expect(rules.map((rule) => rule.alert)).toEqual([
      'HighErrorRatio',
      'HighLatencyP99',
      'OutboxBacklogGrowing',
      'DeadLetterMessages',
      'ServiceNotReady',
    ]);
  });

  it('when a rule fires, then its runbook annotation points to a section of docs/operations.md', () => {
    const anchors = new Set(
      read('docs/operations.md')
        .split('\n')
        .filter((line) => line.startsWith('#'))
        .map((line) => anchorOf(line.replace(/^#+/, ''))),
    );
    for (const rule of rules) {
      const runbook = rule.annotations?.runbook ?? '';
      expect({ alert: rule.alert, runbook }).toEqual({ alert: rule.alert, runbook: `docs/operations.md#${rule.alert.toLowerCase()}` });
      expect({ alert: rule.alert, sectionExists: anchors.has(runbook.split('#')[1] ?? '') }).toEqual({
        alert: rule.alert,
        sectionExists: true,
      });
      expect(rule.labels?.severity).toMatch(/^(page|ticket)$/);
    }
  });

  it('when the PrometheusRule of k8s/ is read, then it holds exactly the groups of deploy/prometheus/alerts.yml', () => {
    const resource = parse(read('k8s/prometheus-rule.yaml')) as { kind: string; metadata: { namespace: string }; spec: RuleGroups };
    expect(resource.kind).toBe('PrometheusRule');
    expect(resource.metadata.namespace).toBe('account-access');
    expect(resource.spec).toEqual(alerts);
  });
});
