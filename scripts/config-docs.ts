/**
 * docs/configuration.md, written from the services' zod schemas (each variable's `.describe()`,
 * its default, whether a standalone start requires it) and from the short list below of what the
 * tools and the tracing bootstrap read outside those schemas. `pnpm generate:config-docs` writes
 * it; scripts/config-docs.test.ts fails when the file and the schemas part.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { z } from 'zod';
import { configSchema as authSchema } from '@platform/auth/config';
import { configSchema as categorizationSchema } from '@platform/categorization/config';
import { configSchema as notifierSchema } from '@platform/notifier/config';
import { configSchema as userSchema } from '@platform/user/config';
import { toolVariables } from './config-docs-tools';

export const CONFIGURATION_DOC = path.resolve(__dirname, '../docs/configuration.md');

/** One variable of a schema, as the reference shows it. */
export interface SchemaVariable {
  name: string;
  description: string | undefined;
  /** The default zod fills in, as text; undefined when the schema has none (the description says what unset means). */
  defaultValue: string | undefined;
  required: boolean;
}

/** The object under a schema's refinements and transforms. */
function shapeOf(schema: z.ZodTypeAny): Record<string, z.ZodTypeAny> {
  let current: z.ZodTypeAny = schema;
  while (current instanceof z.ZodEffects) current = current.innerType() as z.ZodTypeAny;
  if (!(current instanceof z.ZodObject)) throw new Error('a configuration schema must be an object under its refinements');
  return (current as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>;
}

/** The wrappers a field's schema may carry, outermost first. */
function layers(field: z.ZodTypeAny): z.ZodTypeAny[] {
  const found: z.ZodTypeAny[] = [];
  let current: z.ZodTypeAny | undefined = field;
  while (current !== undefined) {
    found.push(current);
    if (current instanceof z.ZodEffects) current = current.innerType() as z.ZodTypeAny;
    else if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) current = current.unwrap() as z.ZodTypeAny;
    else if (current instanceof z.ZodDefault) current = current.removeDefault() as z.ZodTypeAny;
    else current = undefined;
  }
  return found;
}

function defaultOf(field: z.ZodTypeAny): string | undefined {
  const withDefault = layers(field).find((layer): layer is z.ZodDefault<z.ZodTypeAny> => layer instanceof z.ZodDefault);
  return withDefault === undefined ? undefined : String(withDefault._def.defaultValue());
}

/** The variables of one service's schema, as a standalone start (not the embedded quickstart) reads them. */
export function schemaVariables(schema: z.ZodTypeAny): SchemaVariable[] {
  return Object.entries(shapeOf(schema)).map(([name, field]) => ({
    name,
    description: layers(field).find((layer) => layer.description !== undefined)?.description,
    defaultValue: defaultOf(field),
    required: !field.isOptional(),
  }));
}

export const SERVICE_SCHEMAS: Record<string, z.ZodTypeAny> = {
  auth: authSchema(true),
  user: userSchema(true),
  categorization: categorizationSchema(true),
  notifier: notifierSchema(true),
};

interface Row {
  name: string;
  readBy: string[];
  /** The services whose standalone start requires it. */
  requiredBy: string[];
  /** Per service (and `tools`): its default, when it has one. */
  defaults: Map<string, string | undefined>;
  /** Per text, its readers: a variable the services describe alike has one description, else one per service. */
  descriptions: Map<string, string[]>;
}

/** Every variable once, in name order, with who reads it; a schema variable without a description throws. */
export function configurationRows(): Row[] {
  const rows = new Map<string, Row>();
  const rowOf = (name: string): Row => {
    const row = rows.get(name) ?? { name, readBy: [], requiredBy: [], defaults: new Map(), descriptions: new Map() };
    rows.set(name, row);
    return row;
  };
  for (const [service, schema] of Object.entries(SERVICE_SCHEMAS)) {
    for (const variable of schemaVariables(schema)) {
      if (variable.description === undefined) throw new Error(`${service}: ${variable.name} has no .describe()`);
      const row = rowOf(variable.name);
      row.readBy.push(service);
      if (variable.required) row.requiredBy.push(service);
      row.defaults.set(service, variable.defaultValue);
      row.descriptions.set(variable.description, [...(row.descriptions.get(variable.description) ?? []), service]);
    }
  }
  for (const tool of toolVariables) {
    const row = rowOf(tool.name);
    row.readBy.push(...tool.readBy);
    if (tool.defaultValue !== undefined) row.defaults.set(tool.readBy.join(', '), tool.defaultValue);
    if (tool.description !== undefined) row.descriptions.set(tool.description, tool.readBy);
  }
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name));
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One text when every reader agrees, else each reader's (`auth: …; user: …`). */
function perReader(values: Array<[string, string]>, sameForAll: boolean, separator: string): string {
  if (values.length === 0) return '';
  if (sameForAll && new Set(values.map(([, value]) => value)).size === 1) return (values[0] as [string, string])[1];
  return values.map(([readers, value]) => `${readers}: ${value}`).join(separator);
}

function renderRow(row: Row): string {
  const schemaReaders = row.readBy.filter((reader) => Object.hasOwn(SERVICE_SCHEMAS, reader));
  const required = row.requiredBy.length === 0 ? '' : row.requiredBy.length === schemaReaders.length ? 'yes' : row.requiredBy.join(', ');
  const given = [...row.defaults.entries()].filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
  const defaultText = perReader(
    given.map(([reader, value]) => [reader, `\`${value}\``]),
    given.length === row.defaults.size,
    '; ',
  );
  const description = perReader(
    [...row.descriptions.entries()].map(([text, readers]) => [`**${readers.join(', ')}**`, text]),
    true,
    ' ',
  );
  return `| \`${row.name}\` | ${row.readBy.join(', ')} | ${required} | ${cell(defaultText)} | ${cell(description)} |`;
}

const INTRO = `# Configuration

<!-- Written by \`pnpm generate:config-docs\` from the services' zod schemas (services/*/src/config.ts,
their \`.describe()\` texts and defaults) and scripts/config-docs-tools.ts; edit those, not this file.
scripts/config-docs.test.ts fails when they part. -->

Every service validates its variables at start and stops with one message naming each bad one. The
README lists the few a newcomer needs; this is the whole list. "Required" is for a service started
on its own (\`pnpm start:auth\`, an image); under \`pnpm start\` every infrastructure URL and secret
may be left unset (embedded parts, generated secrets). Empty counts as unset.
`;

/** The whole document, formatted by the repository's prettier (its CLI: its API loads plugins by dynamic import, which jest cannot run). */
export function renderConfigurationDoc(): string {
  const lines = ['| variable | read by | required | default | what it is |', '| --- | --- | --- | --- | --- |'];
  for (const row of configurationRows()) lines.push(renderRow(row));
  const text = `${INTRO}\n${lines.join('\n')}\n`;
  const prettier = path.resolve(__dirname, '../node_modules/.bin/prettier');
  return execFileSync(prettier, ['--stdin-filepath', CONFIGURATION_DOC], { input: text, encoding: 'utf8' });
}
