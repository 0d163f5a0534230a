import type { Translation } from '../../../plugin-api.ts';
import type { ServiceTokensEnglish } from './en.ts';

/** رموز الخدمة بالعربية. */
export const ar = {
  'error.abilitiesList': 'يجب أن تكون الصلاحيات قائمة بأسماء صلاحيات.',
  'error.abilityFormat':
    'يجب أن تكون كل صلاحية «*» أو «<resource>:*» أو «<resource>:read|create|update|delete».',
  'error.noMintFromServiceToken': 'لا يمكن لرمز خدمة إنشاء رمز خدمة آخر.',
  'error.abilitiesBeyondToken': 'لا يمكن لرمز الخدمة أن يحمل إلا صلاحيات الرمز الذي أنشأه.',
} satisfies Translation<ServiceTokensEnglish>;
