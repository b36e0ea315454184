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
              group: ['**/db/**', '**/api/**', '**/infra/**'],
              message: 'workflows must not import runtime code',
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
);
