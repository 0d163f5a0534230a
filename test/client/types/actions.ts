// Type test (compiled by `npm run typecheck`):
// `CitadelAction<typeof config>`: every `action` and problem `type` a server of the configuration
// sends, as a string-literal union of its endpoints' actions, the core's codes and its plugins'
// `errorCodes`; a plugin left out takes its codes with it.
import type { CitadelAction } from '../../../src/client/index.ts';
import type { builtInConfig, demoConfig, withoutMagicLinkConfig } from './fixtures.ts';

type Includes<Union, Member> = [Member] extends [Union] ? true : false;

type BuiltIn = CitadelAction<typeof builtInConfig>;
export const builtInCodes: [
  Includes<BuiltIn, 'login.attempt'>,
  Includes<BuiltIn, 'sudo.required'>,
  Includes<BuiltIn, 'impersonation.forbidden'>,
  Includes<BuiltIn, 'two_factor.required'>,
  Includes<BuiltIn, 'admin.forbidden'>,
  Includes<BuiltIn, 'magic_link.action_required'>,
  Includes<BuiltIn, 'about:blank'>,
] = [true, true, true, true, true, true, true];
// A string-literal union, not `string`: an undeclared code is not a member.
export const notDeclared: Includes<BuiltIn, 'no.such_code'> = false;
// Organizations is not a built-in; the demo adds it.
export const noOrganizations: Includes<BuiltIn, 'organizations.last_owner'> = false;
export const demoOrganizations: Includes<CitadelAction<typeof demoConfig>, 'organizations.last_owner'> = true;
export const magicLinkLeftOut: Includes<
  CitadelAction<typeof withoutMagicLinkConfig>,
  'magic_link.action_required'
> = false;
