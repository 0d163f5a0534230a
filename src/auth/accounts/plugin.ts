import { definePlugin } from '../../plugin.ts';
import { accountEndpoints } from './routes.ts';

/** Home page, registration, password sign-in, sign-out, forgotten and reset passwords. */
export const accountsPlugin = definePlugin({ name: 'accounts', endpoints: accountEndpoints });
