// @ts-check
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'fs',
  'path',
  'crypto',
  'os',
  'child_process',
  'net',
  'http',
  'https',
  'util',
  'stream',
  'events',
  'worker_threads',
  'timers',
  'process',
  'buffer',
  'url',
  'dns',
  'zlib',
];

/**
 * Layers import downward only: entry points (api, worker, admin, scripts, activities) → usecases →
 * domain (pure) and data (the only SQL) → db (ORM setup, entities, migrations).
 */
const layer = (files, forbidden, message, extraPaths = [], extraPatterns = []) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: extraPaths.map((name) => ({ name, message })),
        patterns: [
          ...(forbidden.length ? [{ group: forbidden.map((dir) => `**/${dir}/**`), message }] : []),
          ...extraPatterns,
        ],
      },
    ],
  },
});

/**
 * The entry points' rule: reads may go straight to data/ (functions named read…, list…, find…, count…,
 * ping…, listen…; the scope handles and error classes; types), every write goes through a use case, which
 * states its idempotency and concurrency story.
 */
const readsOnlyFromData = {
  group: ['**/data/**'],
  allowImportNamePattern: '^(read[A-Z]|list[A-Z]|listen[A-Z]|find[A-Z]|count[A-Z]|ping[A-Z]|[A-Z])',
  allowTypeImports: true,
  message:
    'entry points read from data/ directly (read…, list…, find…, count…); every write goes through usecases/',
};

const ENTRY = ['api', 'worker', 'admin', 'scripts', 'activities'];

const layerRules = [
  layer(
    ['domain/**/*.ts'],
    [...ENTRY, 'usecases', 'data', 'db', 'infra', 'adapters', 'workflows', 'config'],
    'domain/ holds pure rules and types: no I/O, no layer above it',
    ['@mikro-orm/core', '@mikro-orm/postgresql', '@temporalio/client', 'pg', 'koa'],
  ),
  layer(['db/**/*.ts'], [...ENTRY, 'usecases', 'data', 'adapters', 'workflows'], 'db/ is the bottom layer'),
  layer(
    ['data/**/*.ts'],
    [...ENTRY, 'usecases', 'adapters', 'workflows'],
    'data/ imports only db/ and domain/',
  ),
  layer(['usecases/**/*.ts'], ENTRY, 'use cases are called by entry points, never the reverse'),
  layer(['adapters/**/*.ts'], [...ENTRY, 'usecases', 'data', 'db'], 'adapters speak to insurers only'),
  layer(
    ['infra/**/*.ts', 'config/**/*.ts'],
    [...ENTRY, 'usecases', 'data'],
    'infra/ and config/ sit below the features',
  ),
  layer(
    ['api/**/*.ts'],
    ['worker', 'admin', 'scripts', 'activities'],
    'the API is one entry point; share through usecases/',
    [],
    [readsOnlyFromData],
  ),
  layer(
    ['worker/**/*.ts', 'activities/**/*.ts'],
    ['api', 'admin', 'scripts'],
    'the worker is one entry point; share through usecases/',
    [],
    [readsOnlyFromData],
  ),
  layer(
    ['admin/**/*.ts'],
    ['api', 'worker', 'activities'],
    'operator commands share through usecases/',
    [],
    [readsOnlyFromData],
  ),
  layer(['scripts/**/*.ts'], [], 'scripts start the entry points', [], [readsOnlyFromData]),
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.data/**',
      '.tools/**',
      'test-output/**',
      'bench/results/**',
      'eslint.config.js',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // CommonJS modules loaded by path (the failure converter): plain JavaScript, no type information.
    files: ['**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      parserOptions: { projectService: false },
      sourceType: 'commonjs',
      globals: { require: 'readonly', exports: 'writable' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // ES modules preloaded by path before tsx (the bench's SQL trace hook): no type information.
    files: ['**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { parserOptions: { projectService: false }, globals: { process: 'readonly' } },
  },
  {
    // Workflow code must stay deterministic: no Node built-ins, database code, clocks or randomness.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.flatMap((m) => [m, `node:${m}`]),
            '@mikro-orm/core',
            '@mikro-orm/postgresql',
            'pg',
            'koa',
          ].map((name) => ({
            name,
            message: 'workflows must be deterministic: do this in an activity',
          })),
          patterns: [
            {
              group: ['**/activities/*', '!**/activities/index.js'],
              message: 'import activity types only, via activities/index.js',
            },
            {
              group: [
                '**/db/**',
                '**/api/**',
                '**/infra/**',
                '**/data/**',
                '**/usecases/**',
                '**/adapters/**',
                '**/config/**',
                '**/admin/**',
                '**/worker/**',
                '**/scripts/**',
              ],
              message:
                'workflows import only their contracts, domain/ and the SDK: runtime code runs in activities',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'use workflow time from activities or input' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'not deterministic' },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  ...layerRules,
);
