import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'coverage/**', '.test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    // Contract section 14: request data never reaches a prototype. These are the copying forms a
    // linter can see; the rest is the hook that refuses reserved keys (src/http/request/request-keys.ts).
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ForInStatement',
          message: 'for…in walks inherited keys: use Object.keys or Object.entries (own keys only).',
        },
        {
          selector:
            "CallExpression[callee.object.name='Object'][callee.property.name='assign'][arguments.0.type='ObjectExpression']",
          message: 'Object.assign into a plain object literal: build it with emptyRecord() or own keys only.',
        },
        {
          selector:
            "CallExpression[callee.property.name='assign'] > MemberExpression.arguments[object.name='request'][property.name=/^(body|query|params|cookies|headers)$/]",
          message: 'Request data is never merged with Object.assign: read the fields you need.',
        },
        {
          selector:
            "SpreadElement > MemberExpression[object.name='request'][property.name=/^(body|query|params|cookies|headers)$/]",
          message: 'Request data is never spread into an object: read the fields you need.',
        },
      ],
    },
  },
  {
    files: ['src/**/assets/**/*.js', 'examples/**/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
