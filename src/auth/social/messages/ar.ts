import type { Translation } from '../../../plugin-api.ts';
import type { SocialEnglish } from './en.ts';

export const ar = {
  'error.unknownProvider': 'مزوّد تسجيل دخول غير معروف.',
  'error.unreachable': 'تعذّر الوصول إلى مزوّد تسجيل الدخول حاليًا.',
  'error.refused': 'لم يُسجّل المزوّد دخولك.',
  'error.invalidAttempt': 'محاولة تسجيل الدخول هذه غير صالحة أو انتهت صلاحيتها. يرجى البدء من جديد.',
  'error.failed': 'فشل تسجيل الدخول عبر المزوّد. يرجى المحاولة مرة أخرى.',
  'answer.signedIn': ({ provider }) => `تم تسجيل دخولك باستخدام ${provider}.`,
} satisfies Translation<SocialEnglish>;
