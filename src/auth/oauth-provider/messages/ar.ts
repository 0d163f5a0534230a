import type { Translation } from '../../../core/i18n/types.ts';
import type { OAuthProviderEnglish } from './en.ts';

export const ar = {
  'apps.title': 'التطبيقات المتصلة',
  'apps.intro':
    'التطبيقات التي سمحت لها بتسجيل دخولك بهذا الحساب أو بالتصرف نيابةً عنك. يؤدي سحب الوصول إلى تسجيل خروجك من التطبيق وإنهاء كل رمز وصول يحمله لك.',
  'apps.none': 'لا يملك أي تطبيق وصولًا إلى حسابك.',
  'apps.notVerified': 'غير موثّق',
  'apps.returnsTo': 'يعيدك إلى',
  'apps.can': 'يستطيع',
  'apps.since': 'منذ',
  'apps.withdraw': 'سحب الوصول',
  'apps.withdrawQuestion': ({ name }) => `هل تريد سحب وصول ${name} إلى حسابك؟`,
  'apps.back': 'العودة إلى حسابك',
  'apps.withdrawn': ({ name }) => `لم يعد لدى ${name} وصول إلى حسابك.`,
  'apps.notFound': 'لا يملك أي تطبيق بهذا المعرّف وصولًا إلى حسابك.',
} satisfies Translation<OAuthProviderEnglish>;
