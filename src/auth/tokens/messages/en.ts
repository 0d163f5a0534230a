import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The personal access tokens plugin's texts in English: the typed source of its other languages. */
export const en = {
  'page.title': 'Personal access tokens',
  'page.copyNow': 'Copy your new token now.',
  'page.shownOnce': 'It will not be shown again.',
  'page.copy': 'Copy token',
  'page.intro': 'Tokens let scripts and API clients act as you. Send one in this header:',
  'page.none': 'You have no tokens.',
  'page.name': 'Name',
  'page.abilities': 'Abilities',
  'page.lastUsed': 'Last used',
  'page.neverUsed': 'Never used',
  'page.expires': 'Expires',
  'page.noExpiry': 'Does not expire',
  'page.actions': 'Actions',
  'page.revoke': 'Revoke',
  'page.revokeConfirm': ({ name }: { name: string }) =>
    `Revoke the token ${name}? Anything using it stops working.`,
  'page.createTitle': 'Create a token',
  'page.sudoNotice':
    'Creating a token needs a recent confirmation of your identity. You will be asked for it when you submit, then brought back here with what you typed.',
  'page.confirmNow': 'Confirm now',
  'page.nameHint': 'What the token is for, e.g. "CI deploy".',
  'page.abilitiesHint':
    'Separated by commas or spaces, e.g. posts:read, posts:create. Leave empty for every ability (*).',
  'page.expiresOn': 'Expires on (optional)',
  'page.expiresHint': 'The token stops working at the start of that day (00:00 UTC).',
  'page.create': 'Create token',

  'error.noAbility': 'Give at least one ability, or leave the field out for "*".',
  'error.tooManyAbilities': ({ max }: { max: number }, f) =>
    f.plural(max, {
      one: 'A token can hold at most # ability.',
      other: 'A token can hold at most # abilities.',
    }),
  'error.abilityFormat':
    'Each ability must be "*", "<resource>:*" or "<resource>:read|create|update|delete".',
  'error.expiryFormat': 'Expiry must be an ISO 8601 timestamp, for example 2030-01-31T12:00:00Z.',
  'error.expiryPast': 'Expiry must be in the future.',
  'error.expiryBeyondCaller': 'Expiry cannot be later than that of the token making the request.',
  'error.sameOrganization': 'A token made by a token acts in the same organization.',
  'error.notMember': 'You are not a member of this organization.',
  'error.abilitiesBeyondCaller': 'A token can only create tokens with abilities it holds itself.',
  'error.notFound': 'Token not found.',

  'answer.created': 'Token created. Copy it now: it will not be shown again.',
  'answer.revoked': 'Token revoked.',
  'error.abilitiesList': 'Abilities must be a list of ability names.',
} as const satisfies EnglishCatalog;

export type TokensEnglish = typeof en;
