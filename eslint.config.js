import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import suanli from './apps/server/lint/plugin.mjs';
import legacyCalls from './apps/console/lint/legacy-calls.json' with { type: 'json' };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'e2e/artifacts/**', 'bench/results/**', '.tsbuild/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    files: ['apps/console/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    rules: {
      // Tests and envelopes read loosely typed JSON; the contracts type the real boundaries.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The one module pattern (docs/adding-a-module.md): only a module's factory (<domain>.module.ts)
    // constructs its repositories and services, and route handlers take their types from the schemas.
    files: ['apps/server/src/modules/**/*.ts', 'apps/server/src/realtime/**/*.ts'],
    ignores: ['**/*.module.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'NewExpression[callee.name=/(Repository|Service)$/]',
          message: 'Repositories and services are constructed only in the module factory (<domain>.module.ts).',
        },
        {
          selector: 'CallExpression[callee.property.name=/^(get|post|put|patch|delete|head|route)$/][typeArguments]',
          message: 'Route types come from the schemas through the TypeBox type provider, not from hand-written generics.',
        },
      ],
    },
  },
  {
    // Modules read each other's data through services, never each other's tables (docs/adding-a-module.md §4).
    files: ['apps/server/src/modules/**/*.ts', 'apps/server/src/realtime/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { suanli },
    rules: { 'suanli/own-tables': 'error' },
  },
  {
    // No source file over 400 lines without the reason on its first line (apps/server/lint/file-length.mjs).
    files: ['{apps,packages,e2e,bench,scripts}/**/*.{ts,tsx,mjs}'],
    plugins: { suanli },
    rules: { 'suanli/file-length': 'error' },
  },
  {
    // A center's disk is reached only through its CenterStorage (docs/adr/0016-center-storage.md): on this host
    // or through the center's file service, as the centers file says. The file service's storage internals
    // (and the identity that turns an account into a path on this host) would silently assume the disk is
    // mounted here. center-storage/storage-imports.test.ts shows it failing.
    files: ['apps/server/src/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/file-service/storage', '**/file-service/storage/**', '**/file-service/identity'],
              message: "Modules reach a center's storage through CenterStorage (ctx.storage, center-storage/center-storage.ts), never the file service's internals (ADR 0016).",
            },
          ],
        },
      ],
    },
  },
  {
    // The console calls the API only through route descriptors (apps/console/src/shared/http/call.ts): a URL
    // built by hand can drift from what the server registers. The transport itself and tests (fake backends) are exempt;
    // files not migrated yet are listed in apps/console/lint/legacy-calls.json (the list only shrinks).
    files: ['apps/console/**/*.{ts,tsx}'],
    ignores: ['apps/console/src/shared/http/**', 'apps/console/**/*.test.{ts,tsx}', ...legacyCalls.files],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(get|post|put|delete)$/][callee.object.name=/^(request|client|http|api|backend)$/]",
          message: 'Call the API through a route descriptor: call(Api.route, input) or callWith(client, Api.route, input) (shared/http/call.ts).',
        },
        {
          selector: "CallExpression[callee.property.name=/^(get|post|put|delete)$/][callee.object.property.name=/^(client|files|request)$/]",
          message: 'Call the API through a route descriptor: call(Api.route, input) or callWith(client, Api.route, input) (shared/http/call.ts).',
        },
      ],
    },
  },
  {
    files: ['apps/console/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
);
