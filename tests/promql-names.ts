/** Metric names in Prometheus expositions and PromQL expressions, for the dashboard and alert checks. */

/** A Grafana dashboard, as far as the checks read it. */
export interface Dashboard {
  panels: Array<{ targets?: Array<{ expr: string }> }>;
}

/** The series names a Prometheus exposition offers (a histogram's `_bucket`, `_sum` and `_count`). */
export function metricNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const typed = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (typed) {
      const [, name = '', type] = typed;
      names.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
      if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample?.[1]) names.add(sample[1]);
  }
  return names;
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);

/**
 * The metric names that PromQL expressions select: what is left once strings, label matchers,
 * ranges, grouping clauses and function calls are taken out.
 */
export function queriedMetrics(expressions: string[]): Set<string> {
  const names = new Set<string>();
  for (const expression of expressions) {
    const bare = expression
      .replace(/"(?:[^"\\]|\\.)*"/g, '""')
      .replace(/\{[^}]*\}/g, ' ')
      .replace(/\[[^\]]*\]/g, ' ')
      .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
    for (const match of bare.matchAll(/(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:])(?!\s*\()/g)) {
      const name = match[1] ?? '';
      if (!KEYWORDS.has(name.toLowerCase())) names.add(name);
    }
  }
  return names;
}
