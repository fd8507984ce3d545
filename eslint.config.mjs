import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// One direction in every service (docs/conventions.md): routes -> domain <- store. `domain/`
// declares the ports it needs and never reaches a driver, the HTTP framework or the store;
// `store/` implements those ports; `routes/` (and `entry-points/`: consumers, dispatchers) call
// the domain. Tests are exempt (a domain test may
// drive a real store). Proved to fire by scripts/layers.test.ts.
const DRIVERS = ['pg', 'ioredis', 'amqplib', 'nodemailer', '@platform/db'];
const folderPattern = (name) => `(^|/)${name}(/|$)`;
const layer = (folder, rules) => ({
  files: [`services/*/src/${folder}/**/*.ts`],
  ignores: ['**/*.test.ts'],
  rules: { 'no-restricted-imports': ['error', rules] },
});
const KERNEL_ABOVE = 'the HTTP kernel is for routes and the app; AppError and unavailable() come from @platform/wire.';
const layers = [
  layer('domain', {
    paths: [
      ...[...DRIVERS, 'express'].map((name) => ({ name, message: 'domain/ declares a port; store/ implements it with the driver.' })),
      { name: '@platform/kernel', message: `domain/ never picks an HTTP status: ${KERNEL_ABOVE}` },
    ],
    patterns: [
      { regex: folderPattern('store'), message: 'domain/ must not import store/: declare the port in domain/ and implement it in store/.' },
      { regex: folderPattern('routes'), message: 'domain/ must not import routes/.' },
      { regex: '^\\.\\./(deps|app|service)$', message: 'domain/ receives what it needs; it never reaches the composition root.' },
    ],
  }),
  layer('routes', {
    paths: DRIVERS.map((name) => ({ name, message: 'routes/ call the domain; queries live in store/.' })),
    patterns: [{ regex: folderPattern('store'), message: 'routes/ call the domain (its ports), never store/.' }],
  }),
  // Like routes, for messages and timers: consumers and dispatchers call the domain through its ports.
  layer('entry-points', {
    paths: DRIVERS.map((name) => ({ name, message: 'entry-points/ call the domain and its ports; queries live in store/.' })),
    patterns: [{ regex: folderPattern('store'), message: 'entry-points/ call the domain (its ports), never store/.' }],
  }),
  layer('store', {
    paths: [{ name: '@platform/kernel', message: `store/ holds SQL and Redis commands: ${KERNEL_ABOVE}` }],
    patterns: [{ regex: folderPattern('routes'), message: 'store/ implements domain ports; it never imports routes/.' }],
  }),
];

// The shared packages point one way too: @platform/wire (what goes on the wire) imports neither
// the process runtime nor the express kernel (nor express); @platform/runtime may import wire, never
// the kernel; @platform/credentials may import both, never the kernel; @platform/kernel may import
// all three. Tests included. Proved by scripts/layers.test.ts.
// The same package reached by a relative path (`../../kernel/src/http`).
const byPath = (pkg, message) => ({ regex: `(^|/)packages/${pkg}(/|$)|^(\\.\\./)+${pkg}(/|$)`, message });
const WIRE_ALONE = '@platform/wire is the pure wire contract: it imports neither runtime nor kernel.';
const RUNTIME_BELOW_KERNEL = '@platform/runtime (process concerns) never imports the express kernel.';
const CREDENTIALS_BELOW_KERNEL =
  '@platform/credentials (keys, tokens, the access store) never imports the express kernel; the admin guard lives in the kernel.';
const sharedLayers = [
  {
    files: ['packages/wire/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@platform/runtime', message: WIRE_ALONE },
            { name: '@platform/kernel', message: WIRE_ALONE },
            { name: 'express', message: '@platform/wire describes the wire; the express kernel is @platform/kernel.' },
          ],
          patterns: [byPath('runtime', WIRE_ALONE), byPath('kernel', WIRE_ALONE)],
        },
      ],
    },
  },
  {
    files: ['packages/runtime/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@platform/kernel', message: RUNTIME_BELOW_KERNEL }],
          patterns: [byPath('kernel', RUNTIME_BELOW_KERNEL)],
        },
      ],
    },
  },
  {
    files: ['packages/credentials/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@platform/kernel', message: CREDENTIALS_BELOW_KERNEL }],
          patterns: [byPath('kernel', CREDENTIALS_BELOW_KERNEL)],
        },
      ],
    },
  },
];

// Tests, scripts and benchmarks reach a service through its package's exports (`@platform/user`,
// `@platform/user/openapi`, `@platform/user/testing`, …: services/*/package.json), never by a
// relative path into services/. Proved to fire by scripts/layers.test.ts.
const SERVICE_BY_PATH = {
  regex: '^(\\.\\./)+services/',
  message: "import the service's package (@platform/<service>, or a subpath its package.json exports), not a path into services/.",
};
const servicesByPackage = [
  {
    files: ['tests/**/*.ts', 'scripts/**/*.{ts,mts}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            SERVICE_BY_PATH,
            {
              regex: '^@platform/[\\w-]+/internal/',
              message: "a service's internals are for its own benchmarks; use what the package exports.",
            },
          ],
        },
      ],
    },
  },
  { files: ['bench/**/*.{ts,mts}'], rules: { 'no-restricted-imports': ['error', { patterns: [SERVICE_BY_PATH] }] } },
];

// Every test runs in CI: no focused, skipped or todo test (a skipped test passes silently). `.ci/run`
// also fails when jest reports one. Proved to fire by scripts/layers.test.ts.
const NOT_RUN = 'every test runs: no .only, .skip or .todo (a test that cannot run yet does not belong on the branch).';
const everyTestRuns = {
  rules: {
    'no-restricted-properties': [
      'error',
      ...['it', 'test', 'describe'].flatMap((object) =>
        ['only', 'skip', 'todo'].map((property) => ({ object, property, message: NOT_RUN })),
      ),
    ],
    'no-restricted-globals': ['error', ...['fit', 'fdescribe', 'xit', 'xtest', 'xdescribe'].map((name) => ({ name, message: NOT_RUN }))],
  },
};

// The message of whatever was thrown is `errorMessage(error)` from @platform/runtime, written once.
// The operator console (a browser bundle) and the published client depend on no workspace
// package, so each keeps its own single copy. Proved to fire by scripts/layers.test.ts.
const INLINE_ERROR_MESSAGE = {
  selector:
    "ConditionalExpression[test.operator='instanceof'][test.right.name='Error'][consequent.property.name='message'][alternate.callee.name='String']",
  message: "use errorMessage(error) from '@platform/runtime'.",
};
const oneErrorMessage = {
  ignores: ['packages/runtime/src/error-message.ts', 'packages/admin-console/**', 'packages/client/**'],
  rules: { 'no-restricted-syntax': ['error', INLINE_ERROR_MESSAGE] },
};

// On the path every request and every usage debit takes, no object literal starts with a spread
// that more members follow (`{ ...answer, digest }`): Node 20's V8 takes 0.4–5 µs to build each
// such object, against 10 ns with the members named; Node 22's does not (docs/benchmarks.md,
// "Object spreads on Node 20"). Proved to fire by scripts/layers.test.ts.
const HOT_PATH = [
  'packages/kernel/src/**/*.ts',
  'packages/wire/src/**/*.ts',
  'packages/credentials/src/{verify,access-watch,redis-access-store}.ts',
  'services/user/src/domain/{usage,usage-batch,usage-batcher,commit-usage-batch,balance-commit-hook,recent-answers}.ts',
  'services/user/src/store/{usage-batch,credit-writes,outbox,access-records}.ts',
  'services/user/src/routes/{usage.routes,service-jwt-check}.ts',
];
const noLeadingSpreadOnHotPath = {
  files: HOT_PATH,
  // The OpenAPI document is built once, at start-up.
  ignores: ['**/*.test.ts', 'packages/kernel/src/route-openapi.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      INLINE_ERROR_MESSAGE,
      {
        selector: 'ObjectExpression > SpreadElement:first-child ~ *',
        message: 'name the members: on Node 20 a spread followed by more members costs microseconds (docs/benchmarks.md).',
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'coverage/**',
      '.data/**',
      'jest.config.js',
      'jest.cluster.config.js',
      'eslint.config.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  everyTestRuns,
  oneErrorMessage,
  noLeadingSpreadOnHotPath,
  ...layers,
  ...sharedLayers,
  ...servicesByPackage,
  prettier,
);
