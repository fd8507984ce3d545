/**
 * Generates the client's request and response types (packages/client/src/generated/*.ts) from
 * the services' OpenAPI documents, built in-process from services/*\/src/openapi.ts: the same
 * objects the services serve at /openapi.json, so no server has to run.
 * `pnpm generate:client` writes the files; scripts/client-types.test.ts fails when they drift.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import prettier from 'prettier';
import { openapi as authOpenapi } from '../services/auth/src/openapi';
import { openapi as categorizationOpenapi } from '../services/categorization/src/openapi';
import { openapi as userOpenapi } from '../services/user/src/openapi';

const ROOT = path.resolve(__dirname, '..');
export const GENERATED_DIR = path.join(ROOT, 'packages/client/src/generated');

/** Only the services with a public API; the notifier serves operations endpoints only. */
const documents: Record<string, { source: string; document: Record<string, unknown> }> = {
  auth: { source: 'services/auth/src/openapi.ts', document: authOpenapi },
  user: { source: 'services/user/src/openapi.ts', document: userOpenapi },
  categorization: { source: 'services/categorization/src/openapi.ts', document: categorizationOpenapi },
};

/** File name (inside GENERATED_DIR) → content, exactly as `pnpm generate:client` writes it. */
export async function generateClientTypes(): Promise<Record<string, string>> {
  const prettierConfig = (await prettier.resolveConfig(path.join(GENERATED_DIR, 'user.ts'))) ?? {};
  const files: Record<string, string> = {};
  for (const [name, { source, document }] of Object.entries(documents)) {
    // Every member the services document is always present in their answers, so members are
    // required unless a schema says otherwise; request patches are derived in the client.
    const ast = await openapiTS(document as unknown as OpenAPI3, { propertiesRequiredByDefault: true, silent: true });
    const header = `${COMMENT_HEADER}// Source: ${source} (run \`pnpm generate:client\` after changing it).\n\n`;
    files[`${name}.ts`] = await prettier.format(header + astToString(ast), { ...prettierConfig, parser: 'typescript' });
  }
  return files;
}

async function main(): Promise<void> {
  for (const [file, content] of Object.entries(await generateClientTypes())) {
    const target = path.join(GENERATED_DIR, file);
    const current = await readFile(target, 'utf8').catch(() => undefined);
    if (current === content) continue;
    await writeFile(target, content);
    console.log(`wrote ${path.relative(ROOT, target)}`);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
