import type { Translation } from '../../../plugin-api.ts';
import type { FactorsEnglish } from './en.ts';

export const ar = {
  'page.title': 'المصادقة الثنائية',
  'codes.title': 'رموز الاسترداد الخاصة بك',
  'codes.intro':
    'يتيح لك كل رمز تسجيل الدخول مرة واحدة إذا فقدت تطبيق المصادقة أو مفتاح المرور. احفظها الآن في مكان آمن: لن تُعرض مرة أخرى.',

  'totp.title': 'تطبيق المصادقة',
  'totp.setupTitle': 'إعداد تطبيق مصادقة',
  'totp.setupIntro':
    'امسح الرمز بتطبيق مصادقة (مثل 1Password أو Google Authenticator أو Aegis)، ثم أدخل الرمز المكوّن من 6 أرقام الذي يعرضه.',
  'totp.qrAlt': 'رمز QR لتطبيق المصادقة',
  'totp.keyByHand': 'أو أدخل هذا المفتاح يدويًا:',
  'totp.code': 'الرمز من التطبيق',
  'totp.turnOn': 'تفعيل',
  'totp.cancel': 'إلغاء الإعداد',
  'totp.setup': 'إعداد تطبيق المصادقة',
  'totp.sudoHint': 'سيُطلب منك تأكيد هويتك أولًا.',
  'totp.enabled': 'مُفعّل.',
  'totp.remove': 'إزالة تطبيق المصادقة',
  'totp.removeConfirm': 'هل تريد إزالة تطبيق المصادقة من حسابك؟',

  'passkeys.title': 'مفاتيح المرور',
  'passkeys.none': 'لا توجد مفاتيح مرور بعد.',
  'passkeys.name': 'الاسم',
  'passkeys.added': 'تاريخ الإضافة',
  'passkeys.lastUsed': 'آخر استخدام',
  'passkeys.never': 'أبدًا',
  'passkeys.actions': 'الإجراءات',
  'passkeys.remove': 'إزالة',
  'passkeys.removeConfirm': ({ name }) => `هل تريد إزالة مفتاح المرور «${name}»؟`,
  'passkeys.newName': 'اسم مفتاح المرور الجديد',
  'passkeys.placeholder': 'مثل: الحاسوب المحمول',
  'passkeys.add': 'إضافة مفتاح مرور',

  'recovery.title': 'رموز الاسترداد',
  'recovery.remaining': ({ count }, f) =>
    f.plural(count, {
      zero: 'لم يتبقَّ أي رمز استرداد غير مستخدم.',
      one: 'تبقّى رمز استرداد واحد غير مستخدم.',
      two: 'تبقّى رمزا استرداد غير مستخدمين.',
      few: 'تبقّت # رموز استرداد غير مستخدمة.',
      many: 'تبقّى # رمز استرداد غير مستخدم.',
      other: 'تبقّى # رمز استرداد غير مستخدم.',
    }),
  'recovery.create': 'إنشاء رموز استرداد جديدة',

  'action.twoFactor': 'المصادقة الثنائية',
  'action.enroll': 'إعداد المصادقة الثنائية',
  'action.recoveryCodes': 'احفظ رموز الاسترداد',
  'step.method': 'الطريقة',
  'step.totpCode': 'رمز تطبيق المصادقة',
  'step.recoveryCode': 'رمز الاسترداد',
  'step.code': 'الرمز',
  'step.usePasskey': 'استخدام مفتاح مرور',
  'enroll.intro':
    'تشترط مؤسستك عاملًا ثانيًا. امسح هذا الرمز بتطبيق مصادقة، ثم أدخل الرمز المكوّن من 6 أرقام الذي يعرضه.',
  'enroll.keyByHand': 'أو اكتب هذا المفتاح:',
  'enroll.codeRequired': 'أدخل الرمز من التطبيق.',
  'enroll.chooseFactor': 'اختر «totp» أو «passkey».',
  'recoveryStep.intro':
    'يتيح لك كل رمز تسجيل الدخول مرة واحدة إذا فقدت تطبيق المصادقة. احفظها في مكان آمن: لن تُعرض إلا الآن.',
  'recoveryStep.saved': 'لقد حفظت هذه الرموز',
  'recoveryStep.confirm': 'أكّد أنك حفظت الرموز.',

  'factor.totp': 'تطبيق المصادقة',
  'factor.passkey': 'مفتاح المرور',

  'error.unknownFactor': 'طريقة غير معروفة.',
  'error.proofRequired': 'الإثبات مطلوب.',
  'error.notAccepted': 'لم يُقبل هذا الإثبات. يرجى المحاولة مرة أخرى.',
  'error.totpNotEnrolled': 'لم يُعدّ أي تطبيق مصادقة.',
  'error.passkeyNotEnrolled': 'لا يوجد مفتاح مرور مسجّل بهذا المعرّف.',
  'error.noRecoveryCodes': 'رموز الاسترداد متاحة فقط مع طريقة مصادقة ثنائية مُعدّة.',
  'error.required':
    'المصادقة الثنائية إلزامية لحسابك: أضف تطبيق مصادقة أو مفتاح مرور آخر قبل إزالة هذه الطريقة.',
  'error.totpExists': 'تم إعداد تطبيق مصادقة بالفعل.',
  'error.tooManyPasskeys': ({ max }, f) =>
    f.plural(max, {
      one: 'يمكن تسجيل مفتاح مرور واحد على الأكثر.',
      two: 'يمكن تسجيل مفتاحَي مرور على الأكثر.',
      few: 'يمكن تسجيل # مفاتيح مرور على الأكثر.',
      many: 'يمكن تسجيل # مفتاح مرور على الأكثر.',
      other: 'يمكن تسجيل # مفتاح مرور على الأكثر.',
    }),
  'error.passkeyRejected': 'تعذّر تسجيل دخولك بمفتاح المرور هذا.',
  'error.passkeyRejectedHint': 'تعذّر تسجيل دخولك بمفتاح المرور هذا. حاول مجددًا أو استخدم كلمة المرور.',

  'answer.totpStart': 'امسح رمز QR، ثم أدخل رمزًا من التطبيق.',
  'answer.passkeyStart': 'اتبع تعليمات متصفحك لإنشاء مفتاح مرور.',
  'answer.totpEnabled': 'تم تفعيل تطبيق المصادقة.',
  'answer.passkeyAdded': 'تمت إضافة مفتاح المرور.',
  'answer.totpRemoved': 'تمت إزالة تطبيق المصادقة.',
  'answer.passkeyRemoved': 'تمت إزالة مفتاح المرور.',
  'answer.codesCreated': 'تم إنشاء رموز استرداد جديدة؛ ولم تعد الرموز القديمة صالحة.',
  'answer.signedIn': 'تم تسجيل دخولك.',

  'script.waiting': 'بانتظار مفتاح المرور…',
  'script.notCreated': 'لم يُنشأ مفتاح المرور.',
  'script.notUsed': 'لم يُستخدم مفتاح المرور.',
  'script.unavailable': 'لا يتوفر أي مفتاح مرور.',
  'script.failed': 'حدث خطأ ما.',
  'script.codesTitle': 'رموز الاسترداد الخاصة بك (تُعرض مرة واحدة)',
  'script.codesSaved': 'لقد حفظتها',
} satisfies Translation<FactorsEnglish>;
