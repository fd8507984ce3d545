import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CONFIGURATION_DOC, configurationRows, renderConfigurationDoc, schemaVariables, SERVICE_SCHEMAS } from './config-docs';

describe('docs/configuration.md, written from the configuration schemas', () => {
  it('when the file is compared with what the schemas write, then they are the same (else run `pnpm generate:config-docs`)', () => {
    expect(readFileSync(CONFIGURATION_DOC, 'utf8')).toBe(renderConfigurationDoc());
  });

  it("when every service's schema is read, then each variable has a description", () => {
    const undescribed = Object.entries(SERVICE_SCHEMAS).flatMap(([service, schema]) =>
      schemaVariables(schema)
        .filter((variable) => variable.description === undefined)
        .map((variable) => `${service}: ${variable.name}`),
    );
    expect(undescribed).toEqual([]);
  });

  it('when a variable is added to a schema without a description, then the reference cannot be written', () => {
    const schema = z.object({ DOCUMENTED: z.string().describe('Documented.'), FORGOTTEN: z.string().default('x') }).transform((v) => v);
    expect(schemaVariables(schema)).toEqual([
      { name: 'DOCUMENTED', description: 'Documented.', defaultValue: undefined, required: true },
      { name: 'FORGOTTEN', description: undefined, defaultValue: 'x', required: false },
    ]);
  });

  it('when the variables the reference once lacked are looked up, then each is there, and MAIL_FROM has no made-up default', () => {
    const rows = new Map(configurationRows().map((row) => [row.name, row]));
    for (const name of [
      'WEBHOOK_ALLOW_INSECURE',
      'TOP_UP_URL',
      'BRAND_NAME',
      'USER_INTERNAL_PORT',
      'REDIS_CLUSTER_NODES',
      'SERVICE_JWT_SECRET_PREVIOUS',
    ])
      expect(rows.has(name)).toBe(true);
    expect(rows.get('MAIL_FROM')?.defaults.get('notifier')).toBeUndefined();
    expect(readFileSync(CONFIGURATION_DOC, 'utf8')).not.toContain('Account alerts <alerts@localhost>');
  });
});
