// ESLint flat config. Besides type-aware typescript-eslint rules, it enforces the runtime
// boundary of DESIGN.md: nondeterministic globals and real IO modules only in
// src/runtime/real/ and the simulation kernel (sim/kernel/). Tests, integration tests,
// benchmarks and scripts run against real services and are exempt.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const boundaryMessage =
  'nondeterministic: only src/runtime/real/ and sim/kernel/ may use this; take it from the Env';

// `Date` itself stays usable for deterministic conversions (new Date(ms), Date.UTC, Date.parse);
// reading the current time is caught by the syntax rules below.
const restrictedGlobals = [
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'queueMicrotask',
  'performance',
  'fetch',
  'WeakRef',
  'FinalizationRegistry',
].map((name) => ({ name, message: `${name} is ${boundaryMessage}` }));

const restrictedProperties = [
  { object: 'Math', property: 'random' },
  { object: 'process', property: 'nextTick' },
  { object: 'process', property: 'hrtime' },
  { object: 'crypto', property: 'randomUUID' },
  { object: 'crypto', property: 'randomBytes' },
  { object: 'crypto', property: 'randomInt' },
  { object: 'crypto', property: 'randomFill' },
  { object: 'crypto', property: 'randomFillSync' },
  { object: 'crypto', property: 'getRandomValues' },
  { object: 'globalThis', property: 'Date' },
  { object: 'globalThis', property: 'setTimeout' },
  { object: 'globalThis', property: 'crypto' },
  { object: 'globalThis', property: 'setInterval' },
  { object: 'globalThis', property: 'setImmediate' },
  { object: 'globalThis', property: 'queueMicrotask' },
  { object: 'globalThis', property: 'performance' },
  { object: 'globalThis', property: 'fetch' },
  { object: 'globalThis', property: 'process' },
  { object: 'process', property: 'uptime' },
  { object: 'process', property: 'cpuUsage' },
  { object: 'process', property: 'memoryUsage' },
].map((p) => ({ ...p, message: `${p.object}.${p.property} is ${boundaryMessage}` }));

const ioModules = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'dns',
  'dns/promises',
  'tls',
  'os',
  'inspector',
  'v8',
  'perf_hooks',
  'timers',
  'timers/promises',
  'child_process',
  'worker_threads',
];
const restrictedImports = {
  paths: [
    ...ioModules.flatMap((m) => [
      { name: m, message: `${m} is ${boundaryMessage}` },
      { name: `node:${m}`, message: `node:${m} is ${boundaryMessage}` },
    ]),
    ...['crypto', 'node:crypto'].map((name) => ({
      name,
      importNames: [
        'default',
        'randomUUID',
        'randomBytes',
        'randomInt',
        'randomFill',
        'randomFillSync',
        'getRandomValues',
        'webcrypto',
      ],
      message: `crypto randomness is ${boundaryMessage}`,
    })),
    {
      name: 'prom-client',
      importNames: ['Summary'],
      message: `prom-client's Summary reads the wall clock (its sliding window): ${boundaryMessage}; use a Histogram`,
    },
    ...['process', 'node:process'].map((name) => ({
      name,
      importNames: ['nextTick', 'hrtime', 'uptime', 'cpuUsage', 'memoryUsage'],
      message: `process timing is ${boundaryMessage}`,
    })),
  ],
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'data/**',
      '.cache/**',
      'eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    // Plain JS build/CI scripts run outside the TypeScript project.
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', URL: 'readonly', console: 'readonly' },
    },
  },
  {
    files: ['**/*.ts'],
    ignores: [
      'src/runtime/real/**',
      'sim/kernel/**',
      '**/*.test.ts',
      'integration/**',
      'bench/**',
      'scripts/**',
      'vitest.config.ts',
    ],
    rules: {
      'no-restricted-globals': ['error', ...restrictedGlobals],
      'no-restricted-properties': ['error', ...restrictedProperties],
      'no-restricted-imports': ['error', restrictedImports],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: `new Date() is ${boundaryMessage}`,
        },
        {
          selector: "CallExpression[callee.name='Date']",
          message: `Date() is ${boundaryMessage}`,
        },
        {
          selector: "MemberExpression[object.name='Date'][property.name='now']",
          message: `Date.now is ${boundaryMessage}`,
        },
        {
          selector: `ImportExpression[source.value=/^(node:)?(${ioModules.join('|').replaceAll('/', '\\/')})$/]`,
          message: `dynamic import of an IO module is ${boundaryMessage}`,
        },
        {
          selector: "MemberExpression[object.name='Date'][property.value='now']",
          message: `Date.now is ${boundaryMessage}`,
        },
        {
          selector: "VariableDeclarator[init.name='Date']",
          message: `aliasing Date is ${boundaryMessage}`,
        },
        {
          selector: "AssignmentExpression[right.name='Date']",
          message: `aliasing Date is ${boundaryMessage}`,
        },
      ],
    },
  },
);
