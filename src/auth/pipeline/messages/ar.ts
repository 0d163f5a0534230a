import type { Translation } from '../../../plugin-api.ts';
import type { PipelineEnglish } from './en.ts';

export const ar = {
  'page.noStepTitle': 'تسجيل الدخول',
  'page.noStep': 'لا توجد خطوة تسجيل دخول بانتظارك.',
  'page.signIn': 'تسجيل الدخول',
  'page.signingInAs': ({ email }) => `جارٍ تسجيل الدخول باسم ${email}.`,
  'page.continue': 'متابعة',
  'page.resend': 'إرسال رمز جديد',
  'page.cancel': 'إلغاء',
  'page.continueToFinish': 'تابع لإكمال تسجيل الدخول.',

  'answer.newCode': 'رمز جديد في الطريق إليك.',
  'answer.nothingToSend': 'لا يوجد ما يُرسل في هذه الخطوة.',
  'answer.nextStep': 'تم. بقيت خطوة أخرى.',
  'answer.signedIn': 'تم تسجيل دخولك.',
  'answer.cancelled': 'تم إلغاء تسجيل الدخول.',
  'error.wrongCode': 'الرمز غير صالح أو انتهت صلاحيته.',
  'error.tooMany': 'محاولات غير صالحة كثيرة جدًا. يرجى تسجيل الدخول مجددًا.',

  'code.label': 'الرمز من البريد الإلكتروني',
  'code.wait': 'يرجى الانتظار قليلًا قبل طلب رمز آخر.',
  'code.required': 'الرمز مطلوب.',
  'code.format': 'يتكون الرمز من 6 أرقام.',
  'email2fa.label': 'أدخل الرمز الذي أرسلناه إليك',
  'email2fa.subject': 'رمز تسجيل الدخول',
  'email2fa.intro': ({ username }) => `استخدم هذا الرمز لإكمال تسجيل الدخول إلى الحساب ${username}.`,
  'activation.label': 'تفعيل حسابك',
  'activation.subject': 'فعّل حسابك',
  'activation.intro': ({ username }) => `استخدم هذا الرمز لتفعيل الحساب ${username}.`,
  'mail.outro': ({ minutes }, f) =>
    f.plural(minutes, {
      one: 'الرمز صالح لمدة دقيقة واحدة ولمرة واحدة فقط. إذا لم تحاول تسجيل الدخول، فغيّر كلمة المرور.',
      two: 'الرمز صالح لمدة دقيقتين ولمرة واحدة فقط. إذا لم تحاول تسجيل الدخول، فغيّر كلمة المرور.',
      few: 'الرمز صالح لمدة # دقائق ولمرة واحدة فقط. إذا لم تحاول تسجيل الدخول، فغيّر كلمة المرور.',
      many: 'الرمز صالح لمدة # دقيقة ولمرة واحدة فقط. إذا لم تحاول تسجيل الدخول، فغيّر كلمة المرور.',
      other: 'الرمز صالح لمدة # دقيقة ولمرة واحدة فقط. إذا لم تحاول تسجيل الدخول، فغيّر كلمة المرور.',
    }),
} satisfies Translation<PipelineEnglish>;
