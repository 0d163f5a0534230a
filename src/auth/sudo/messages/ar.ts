import type { Translation } from '../../../plugin-api.ts';
import type { SudoEnglish } from './en.ts';

// Purposes are verbal nouns (إنشاء، تغيير، حذف): the sentences attach them with لـ.
export const ar = {
  'page.title': 'أكّد هويتك',
  'page.activeTitle': 'وضع sudo مُفعّل',
  'page.intro': ({ minutes }, f) =>
    f.plural(minutes, {
      one: 'أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة دقيقة واحدة.',
      two: 'أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة دقيقتين.',
      few: 'أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة # دقائق.',
      many: 'أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة # دقيقة.',
      other: 'أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة # دقيقة.',
    }),
  'page.introFor': ({ purpose, minutes }, f) =>
    f.plural(minutes, {
      one: `ل${purpose}، أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة دقيقة واحدة.`,
      two: `ل${purpose}، أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة دقيقتين.`,
      few: `ل${purpose}، أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة # دقائق.`,
      many: `ل${purpose}، أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة # دقيقة.`,
      other: `ل${purpose}، أكّد هويتك بإحدى هذه الطرق. لن يُطلب منك ذلك مجددًا لمدة # دقيقة.`,
    }),
  'page.activeUntil': ({ until }) =>
    `يمكنك إجراء التغييرات الحساسة حتى ${until} دون أن يُطلب منك التأكيد مجددًا.`,
  'page.continue': 'متابعة',
  'page.continueTo': ({ purpose }) => `متابعة ل${purpose}`,
  'page.leave': 'الخروج من وضع sudo',
  'page.signInAgain': 'سجّل الدخول مجددًا للمتابعة.',
  'page.confirm': 'تأكيد',
  'page.password': 'كلمة المرور',
  'page.totp': 'تطبيق المصادقة',
  'page.totpCode': 'الرمز من التطبيق',
  'page.passkey': 'مفتاح المرور',
  'page.usePasskey': 'استخدام مفتاح مرور',
  'page.recoveryCode': 'رمز الاسترداد',

  'purpose.tokens': 'إنشاء رمز وصول',
  'purpose.twoFactor': 'تغيير إعدادات المصادقة الثنائية',
  'purpose.email': 'تغيير عنوان بريدك الإلكتروني',
  'purpose.deleteAccount': 'حذف حسابك',
  'purpose.password': 'تغيير كلمة المرور',

  'answer.notAvailable': 'هذه الطريقة غير متاحة لحسابك.',
  'answer.notAccepted': 'لم يُقبل هذا الإثبات. يرجى المحاولة مرة أخرى.',
  'answer.confirmed': 'تم تأكيد الهوية.',
  'answer.left': 'لقد خرجت من وضع sudo.',
  'passkey.waiting': 'بانتظار مفتاح المرور…',
  'passkey.notUsed': 'لم يُستخدم مفتاح المرور.',
  'passkey.unavailable': 'لا يتوفر أي مفتاح مرور.',
  'passkey.failed': 'حدث خطأ ما.',
} satisfies Translation<SudoEnglish>;
