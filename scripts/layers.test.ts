import { spawnSync } from 'node:child_process';
import path from 'node:path';

// The layering rule of eslint.config.mjs (domain/ never imports store/, drivers, express or the
// kernel; routes/ and entry-points/ never import store/ or drivers; store/ never imports the
// kernel; @platform/wire imports neither runtime nor kernel; @platform/runtime and
// @platform/credentials never import kernel) must keep firing: each case lints a text as if it
// were a file of that layer, with the repository's own ESLint configuration, and checks what it
// reports. The same for the rule that every test runs (no .only, .skip, .todo, x- or f-prefixed
// tests) and for the one way to write the message of a thrown value (errorMessage).

const ROOT = path.resolve(__dirname, '..');

interface Case {
  /** An existing file of the layer: type-aware linting needs a file the TypeScript project knows. */
  as: string;
  code: string;
}

const CASES: Record<string, Case> = {
  domainImportsStore: {
    as: 'services/user/src/domain/integer-field.ts',
    code: "import type { PoolKey } from '../store/usage-batch';\nexport type Key = PoolKey;\n",
  },
  domainImportsDriver: {
    as: 'services/auth/src/domain/bearer-api-key.ts',
    code: "import type { Pool } from 'pg';\nexport type Db = Pool;\n",
  },
  domainImportsDb: {
    as: 'services/notifier/src/domain/alert-rules.ts',
    code: "import type { Queryable } from '@platform/db';\nexport type Db = Queryable;\n",
  },
  domainImportsExpress: {
    as: 'services/categorization/src/domain/category.ts',
    code: "import type { Request } from 'express';\nexport type R = Request;\n",
  },
  routesImportStore: {
    as: 'services/user/src/routes/balance-view.ts',
    code: "import { readBalances } from '../store/balances';\nexport const read = readBalances;\n",
  },
  entryPointImportsStore: {
    as: 'services/notifier/src/entry-points/mail-dispatcher.ts',
    code: "import { claimDueMail } from '../store/mail-outbox';\nexport const claim = claimDueMail;\n",
  },
  entryPointImportsDriver: {
    as: 'services/notifier/src/entry-points/webhook-dispatcher.ts',
    code: "import type { Pool } from 'pg';\nexport type Db = Pool;\n",
  },
  entryPointImportsDomain: {
    as: 'services/notifier/src/entry-points/balance-changed-handler.ts',
    code: "import type { NotifierStore } from '../domain/notifier-store';\nexport type S = NotifierStore;\n",
  },
  domainImportsDomain: {
    as: 'services/user/src/domain/integer-field.ts',
    code: "import type { Product } from './catalogue';\nexport type P = Product;\n",
  },
  storeImportsDomain: {
    as: 'services/user/src/store/accounts.ts',
    code: "import type { AccountRecord } from '../domain/user-store';\nexport type A = AccountRecord;\n",
  },
  storeImportsKernel: {
    as: 'services/auth/src/store/unavailable.ts',
    code: "import { unavailable } from '@platform/kernel';\nexport const down = unavailable;\n",
  },
  domainImportsKernel: {
    as: 'services/user/src/domain/integer-field.ts',
    code: "import { unavailable } from '@platform/kernel';\nexport const down = unavailable;\n",
  },
  storeImportsWire: {
    as: 'services/auth/src/store/unavailable.ts',
    code: "import { unavailable } from '@platform/wire';\nexport const down = unavailable;\n",
  },
  credentialsImportKernel: {
    as: 'packages/credentials/src/verify.ts',
    code: "import type { RouteEdge } from '@platform/kernel';\nexport type E = RouteEdge;\n",
  },
  credentialsReachKernelByPath: {
    as: 'packages/credentials/src/secrets.ts',
    code: "import type { RouteEdge } from '../../kernel/src/route-edge';\nexport type E = RouteEdge;\n",
  },
  kernelImportsCredentials: {
    as: 'packages/kernel/src/admin-token.ts',
    code: "import type { FailureLimit } from '@platform/credentials';\nexport type F = FailureLimit;\n",
  },
  wireImportsRuntime: {
    as: 'packages/wire/src/xml.ts',
    code: "import type { Logger } from '@platform/runtime';\nexport type L = Logger;\n",
  },
  wireImportsKernel: {
    as: 'packages/wire/src/errors.ts',
    code: "import type { RouteEdge } from '@platform/kernel';\nexport type E = RouteEdge;\n",
  },
  wireImportsExpress: {
    as: 'packages/wire/src/params.ts',
    code: "import type { Request } from 'express';\nexport type R = Request;\n",
  },
  runtimeImportsKernel: {
    as: 'packages/runtime/src/lifecycle.ts',
    code: "import type { HttpApp } from '@platform/kernel';\nexport type A = HttpApp;\n",
  },
  runtimeReachesKernelByPath: {
    as: 'packages/runtime/src/health.ts',
    code: "import type { RouteEdge } from '../../kernel/src/route-edge';\nexport type E = RouteEdge;\n",
  },
  runtimeImportsWire: {
    as: 'packages/runtime/src/logger.ts',
    code: "import type { ErrorCode } from '@platform/wire';\nexport type C = ErrorCode;\n",
  },
  kernelImportsRuntime: {
    as: 'packages/kernel/src/cors.ts',
    code: "import type { Logger } from '@platform/runtime';\nexport type L = Logger;\n",
  },
  testReachesServiceByPath: {
    as: 'tests/openapi-schemas.test.ts',
    code: "import { openapi } from '../services/user/src/openapi';\nexport const document = openapi;\n",
  },
  scriptReachesServiceByPath: {
    as: 'scripts/migrate.ts',
    code: "import { userMigrations } from '../services/user/src/migrations';\nexport const migrations = userMigrations;\n",
  },
  benchReachesServiceByPath: {
    as: 'bench/operator-search.ts',
    code: "import { loadConfig } from '../services/user/src';\nexport const load = loadConfig;\n",
  },
  testReachesServiceInternals: {
    as: 'tests/openapi-schemas.test.ts',
    code: "import type { Debit } from '@platform/user/internal/domain/usage-batch';\nexport type D = Debit;\n",
  },
  testImportsServicePackage: {
    as: 'tests/openapi-schemas.test.ts',
    code: "import { openapi } from '@platform/user/openapi';\nexport const document = openapi;\n",
  },
  inlineErrorMessage: {
    as: 'services/user/src/entry-points/outbox-relay.ts',
    code: 'export const text = (error: unknown): string => (error instanceof Error ? error.message : String(error));\n',
  },
  leadingSpreadOnHotPath: {
    as: 'services/user/src/domain/usage-batch.ts',
    code: 'export const grant = (answer: object, digest: string): object => ({ ...answer, digest });\n',
  },
  inlineErrorMessageOnHotPath: {
    as: 'packages/kernel/src/respond.ts',
    code: 'export const text = (error: unknown): string => (error instanceof Error ? error.message : String(error));\n',
  },
  leadingSpreadAtStartUp: {
    as: 'packages/kernel/src/route-openapi.ts',
    code: 'export const grant = (answer: object, digest: string): object => ({ ...answer, digest });\n',
  },
  spreadAloneOnHotPath: {
    as: 'services/user/src/domain/usage-batch.ts',
    code: 'export const copy = (answer: object): object => ({ ...answer });\n',
  },
  errorMessageHelper: {
    as: 'packages/runtime/src/error-message.ts',
    code: 'export const text = (error: unknown): string => (error instanceof Error ? error.message : String(error));\n',
  },
  // The forbidden calls are assembled, so that a search of the repository for focused or skipped
  // tests finds only real ones, not these samples the lint rule must refuse.
  focusedTest: {
    as: 'packages/runtime/src/worker-loop.test.ts',
    code: `${['it', 'only'].join('.')}('runs alone', () => undefined);\n`,
  },
  skippedSuite: {
    as: 'packages/runtime/src/worker-loop.test.ts',
    code: `${['describe', 'skip'].join('.')}('never runs', () => undefined);\n`,
  },
  todoTest: {
    as: 'packages/runtime/src/worker-loop.test.ts',
    code: "test.todo('some day');\n",
  },
  skippedByPrefix: {
    as: 'packages/runtime/src/worker-loop.test.ts',
    code: `${'x'}it('never runs', () => undefined);\n`,
  },
  everyTest: {
    as: 'packages/runtime/src/worker-loop.test.ts',
    code: "it.each([1])('runs %i', () => undefined);\n",
  },
};

// One Node process lints every case (building the TypeScript program once).
const LINT = `
import { ESLint } from 'eslint';
const cases = JSON.parse(process.argv[1]);
const eslint = new ESLint({ cwd: process.cwd() });
const found = {};
for (const [name, { as, code }] of Object.entries(cases)) {
  const [result] = await eslint.lintText(code, { filePath: as });
  found[name] = result.messages.map((m) => m.ruleId ?? 'fatal: ' + m.message);
}
process.stdout.write(JSON.stringify(found));
`;

let found: Record<string, string[]>;
beforeAll(() => {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', LINT, JSON.stringify(CASES)], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`eslint did not run: ${result.stderr}`);
  found = JSON.parse(result.stdout) as Record<string, string[]>;
}, 130_000);

describe('layering lint rule', () => {
  it.each([
    'domainImportsStore',
    'domainImportsDriver',
    'domainImportsDb',
    'domainImportsExpress',
    'routesImportStore',
    'entryPointImportsStore',
    'entryPointImportsDriver',
    'storeImportsKernel',
    'domainImportsKernel',
    'credentialsImportKernel',
    'credentialsReachKernelByPath',
    'wireImportsRuntime',
    'wireImportsKernel',
    'wireImportsExpress',
    'runtimeImportsKernel',
    'runtimeReachesKernelByPath',
    'testReachesServiceByPath',
    'scriptReachesServiceByPath',
    'benchReachesServiceByPath',
    'testReachesServiceInternals',
  ])('when %s, then no-restricted-imports reports it', (name) => {
    expect(found[name]).toContain('no-restricted-imports');
  });

  it.each(['focusedTest', 'skippedSuite', 'todoTest'])('when %s, then no-restricted-properties reports it', (name) => {
    expect(found[name]).toContain('no-restricted-properties');
  });

  it.each(['inlineErrorMessage', 'inlineErrorMessageOnHotPath'])(
    'when the message of a thrown value is written inline (%s), then no-restricted-syntax reports it',
    (name) => {
      expect(found[name]).toContain('no-restricted-syntax');
    },
  );

  it('when an object on the hot path starts with a spread that more members follow, then no-restricted-syntax reports it', () => {
    expect(found.leadingSpreadOnHotPath).toEqual(['no-restricted-syntax']);
  });

  it('when a test is skipped by its x prefix, then no-restricted-globals reports it', () => {
    expect(found.skippedByPrefix).toContain('no-restricted-globals');
  });

  it.each([
    'domainImportsDomain',
    'entryPointImportsDomain',
    'storeImportsDomain',
    'runtimeImportsWire',
    'kernelImportsRuntime',
    'storeImportsWire',
    'kernelImportsCredentials',
    'everyTest',
    'errorMessageHelper',
    'leadingSpreadAtStartUp',
    'spreadAloneOnHotPath',
    'testImportsServicePackage',
  ])('when %s (the allowed direction), then nothing is reported', (name) => {
    expect(found[name]).toEqual([]);
  });
});
