/**
 * Generates the client's request and response types (packages/client/src/generated/*.ts) from
 * the services' OpenAPI documents, built in-process from services/*\/src/openapi.ts: the same
 * objects the services serve at /openapi.json, so no server has to run.
 * scripts/client-types.test.ts runs the check in CI. (A child process: openapi-typescript's
 * CommonJS build requires ES modules, which Node loads and jest's module sandbox does not.)
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import prettier from 'prettier';
import { openapi as authOpenapi } from '@platform/auth/openapi';
import { adminOpenapi as categorizationAdminOpenapi, openapi as categorizationOpenapi } from '@platform/categorization/openapi';
import { adminOpenapi as userAdminOpenapi, openapi as userOpenapi } from '@platform/user/openapi';

const ROOT = path.resolve(__dirname, '..');
export const GENERATED_DIR = path.join(ROOT, 'packages/client/src/generated');

/**
 * Only the services with a public API; the notifier serves operations endpoints only. The
 * customer's types come from the public documents (`/openapi.json`); the product client's
 * (the internal usage API) and the admin API's from the admin documents (`/admin/v1/openapi.json`).
 */
const documents: Record<string, { source: string; document: Record<string, unknown> }> = {
  auth: { source: 'services/auth/src/openapi.ts (openapi)', document: authOpenapi },
  user: { source: 'services/user/src/openapi.ts (openapi)', document: userOpenapi },
  'user-admin': { source: 'services/user/src/openapi.ts (adminOpenapi)', document: userAdminOpenapi },
  categorization: { source: 'services/categorization/src/openapi.ts (openapi)', document: categorizationOpenapi },
  'categorization-admin': { source: 'services/categorization/src/openapi.ts (adminOpenapi)', document: categorizationAdminOpenapi },
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

/**
 * `pnpm generate:client` writes the files; with `--check` it writes nothing and exits 1 naming
 * the files that differ (`--dir <folder>` compares another folder, for the check's own test).
 */
async function main(args: string[]): Promise<number> {
  const check = args.includes('--check');
  const dirIndex = args.indexOf('--dir');
  const dir = dirIndex >= 0 && args[dirIndex + 1] ? path.resolve(args[dirIndex + 1] as string) : GENERATED_DIR;
  const drifted: string[] = [];
  for (const [file, content] of Object.entries(await generateClientTypes())) {
    const target = path.join(dir, file);
    const current = await readFile(target, 'utf8').catch(() => undefined);
    if (current === content) continue;
    drifted.push(path.relative(ROOT, target));
    if (!check) await writeFile(target, content);
  }
  if (!check) {
    for (const file of drifted) console.log(`wrote ${file}`);
    return 0;
  }
  if (drifted.length === 0) return 0;
  console.error(`generated client types are out of date: ${drifted.join(', ')}; run pnpm generate:client`);
  return 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
