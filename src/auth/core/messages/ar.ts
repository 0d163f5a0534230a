import type { Translation } from '../../../core/i18n/types.ts';
import type { AuthEnglish } from './en.ts';

// Field labels come from the schemas in English: the texts below name no label, the form shows it.
export const ar = {
  'field.required': 'هذا الحقل مطلوب.',
  'field.minLength': ({ limit }, f) =>
    f.plural(limit, {
      one: 'أدخل حرفًا واحدًا على الأقل.',
      two: 'أدخل حرفين على الأقل.',
      few: 'أدخل # أحرف على الأقل.',
      many: 'أدخل # حرفًا على الأقل.',
      other: 'أدخل # حرف على الأقل.',
    }),
  'field.maxLength': ({ limit }, f) =>
    f.plural(limit, {
      one: 'أدخل حرفًا واحدًا على الأكثر.',
      two: 'أدخل حرفين على الأكثر.',
      few: 'أدخل # أحرف على الأكثر.',
      many: 'أدخل # حرفًا على الأكثر.',
      other: 'أدخل # حرف على الأكثر.',
    }),
  'field.email': 'أدخل عنوان بريد إلكتروني صالحًا.',
  'field.invalid': 'هذه القيمة غير صالحة.',
  'field.text': 'أدخل نصًا.',
  'field.boolean': 'القيم المقبولة هي true أو false فقط.',
  'field.number': 'أدخل رقمًا.',
  'field.minimum': ({ limit }, f) => `يجب ألا تقل القيمة عن ${f.number(limit)}.`,
  'field.maximum': ({ limit }, f) => `يجب ألا تزيد القيمة على ${f.number(limit)}.`,
  'field.list': 'المطلوب قائمة.',
  'field.minItems': ({ limit }, f) => `يجب أن تضم القائمة ${f.number(limit)} عناصر على الأقل.`,
  'field.maxItems': ({ limit }, f) => `يجب ألا تضم القائمة أكثر من ${f.number(limit)} عناصر.`,
  'field.invalidCharacter': 'يحتوي الإدخال على حرف غير مسموح به.',

  'password.tooShort': ({ min }, f) =>
    f.plural(min, {
      one: 'يجب أن تتكون كلمة المرور من حرف واحد على الأقل.',
      two: 'يجب أن تتكون كلمة المرور من حرفين على الأقل.',
      few: 'يجب أن تتكون كلمة المرور من # أحرف على الأقل.',
      many: 'يجب أن تتكون كلمة المرور من # حرفًا على الأقل.',
      other: 'يجب أن تتكون كلمة المرور من # حرف على الأقل.',
    }),
  'password.tooLong': ({ max }, f) =>
    f.plural(max, {
      one: 'يجب ألا تتجاوز كلمة المرور حرفًا واحدًا.',
      two: 'يجب ألا تتجاوز كلمة المرور حرفين.',
      few: 'يجب ألا تتجاوز كلمة المرور # أحرف.',
      many: 'يجب ألا تتجاوز كلمة المرور # حرفًا.',
      other: 'يجب ألا تتجاوز كلمة المرور # حرف.',
    }),
  'password.common': 'كلمة المرور هذه شائعة جدًا. يرجى اختيار كلمة مرور أخرى.',
  'password.mismatch': 'كلمتا المرور غير متطابقتين.',

  'signIn.first': 'يرجى تسجيل الدخول أولًا.',
  'signIn.expired': 'انتهت صلاحية محاولة تسجيل الدخول هذه. يرجى تسجيل الدخول من جديد.',
  'signIn.oneMoreStep': 'بقيت خطوة واحدة لإكمال تسجيل الدخول.',
  'signIn.disabled': 'هذا الحساب معطّل.',
  'signIn.disabledByAdmin': 'عطّل أحد المسؤولين هذا الحساب.',
  'access.adminsOnly': 'للمسؤولين فقط.',
  'access.notWhileImpersonating': 'غير متاح أثناء التصرف باسم مستخدم آخر.',
  'token.invalid': 'رمز الوصول غير صالح أو منتهي الصلاحية.',
  'proof.required': 'يرجى إدخال إثبات الهوية.',
  'proof.factorRequired': 'يرجى اختيار طريقة.',

  'sudo.required': 'يرجى تأكيد هويتك للمتابعة.',
  'sudo.wrongCredential': 'لا يمكن استخدام وسيلة التحقق هذه لهذه العملية.',

  'notice.where': ({ device, ip }) => (ip ? ` من ${device} (${ip})` : ` من ${device}`),
  'notice.review':
    'إذا كنت أنت من قام بذلك فلا حاجة لأي إجراء. وإن لم تكن أنت، فغيّر كلمة المرور وراجع الجلسات وأحداث الأمان في إعدادات حسابك.',
  'notice.newDevice.subject': 'تسجيل دخول جديد إلى حسابك',
  'notice.newDevice.intro': ({ username, where }) =>
    `تم تسجيل دخول جديد إلى حسابك ${username}${where}. لم يُستخدم هذا الجهاز مع هذا الحساب مؤخرًا.`,
  'notice.passwordChanged.subject': 'تم تغيير كلمة المرور',
  'notice.passwordChanged.intro': ({ username, where }) => `تم تغيير كلمة مرور حسابك ${username}${where}.`,
  'notice.passwordReset.subject': 'تمت إعادة تعيين كلمة المرور',
  'notice.passwordReset.intro': ({ username, where }) =>
    `تمت إعادة تعيين كلمة مرور حسابك ${username} عبر رابط مُرسل بالبريد الإلكتروني${where}. وتم تسجيل الخروج من جميع الجلسات.`,
  'notice.emailChange.subject': 'جارٍ تغيير عنوان بريدك الإلكتروني',
  'notice.emailChange.intro': ({ username, where, newEmail }) =>
    `طلب شخص ما${where} تغيير عنوان البريد الإلكتروني لحسابك ${username} إلى ${newEmail}. لن يتغير العنوان إلا بعد تأكيد الرابط المرسل إلى العنوان الجديد مع تسجيل الدخول إلى هذا الحساب.`,
  'notice.emailChange.anotherAddress': 'عنوان آخر',
  'notice.factorAdded.subject': 'تمت إضافة طريقة للمصادقة الثنائية',
  'notice.factorAdded.intro': ({ username, where, factor }) =>
    `تمت إضافة ${factor} إلى حسابك ${username}${where}.`,
  'notice.factorRemoved.subject': 'تمت إزالة طريقة للمصادقة الثنائية',
  'notice.factorRemoved.intro': ({ username, where, factor }) =>
    `تمت إزالة ${factor} من حسابك ${username}${where}.`,
  'notice.factor.unnamed': 'طريقة للمصادقة الثنائية',
  'notice.tokenCreated.subject': 'تم إنشاء رمز وصول شخصي',
  'notice.tokenCreated.intro': ({ username, where, tokenName }) =>
    `تم إنشاء رمز وصول شخصي باسم «${tokenName}» لحسابك ${username}${where}.`,
  'notice.secondFactorLocked.subject': 'تم إيقاف تسجيل الدخول بالمصادقة الثنائية مؤقتًا',
  'notice.secondFactorLocked.intro': ({ username, where }) =>
    `أُدخلت رموز مصادقة ثنائية خاطئة كثيرة جدًا لحسابك ${username}${where}. تم إيقاف إدخال الرموز لبعض الوقت.`,
} satisfies Translation<AuthEnglish>;
