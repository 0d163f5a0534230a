import type { Translation } from '../../../plugin-api.ts';
import type { AccountsEnglish } from './en.ts';

export const ar = {
  'social.intro': 'أو تابع باستخدام:',
  'social.signInWith': ({ provider }) => `تسجيل الدخول باستخدام ${provider}`,

  'login.title': 'تسجيل الدخول',
  'login.identifier': 'البريد الإلكتروني أو اسم المستخدم',
  'login.password': 'كلمة المرور',
  'login.remember': ({ days }, f) =>
    f.plural(days, {
      one: 'إبقائي مسجّلًا لمدة يوم واحد',
      two: 'إبقائي مسجّلًا لمدة يومين',
      few: 'إبقائي مسجّلًا لمدة # أيام',
      many: 'إبقائي مسجّلًا لمدة # يومًا',
      other: 'إبقائي مسجّلًا لمدة # يوم',
    }),
  'login.submit': 'تسجيل الدخول',
  'login.or': 'أو',
  'login.passkey': 'تسجيل الدخول بمفتاح مرور',
  'login.forgot': 'هل نسيت كلمة المرور؟',
  'login.magicLink': 'أرسل لي رابط تسجيل دخول بالبريد الإلكتروني',
  'login.register': 'إنشاء حساب',

  'register.title': 'إنشاء حساب',
  'register.username': 'اسم المستخدم',
  'register.usernameHint': ({ min, max }, f) =>
    `من ${f.number(min)} إلى ${f.number(max)} من الحروف والأرقام والمسافات.`,
  'register.email': 'البريد الإلكتروني',
  'register.password': 'كلمة المرور',
  'register.passwordHint': ({ min, max }, f) =>
    `من ${f.number(min)} إلى ${f.number(max)} حرف، على ألا تكون كلمة مرور شائعة الاستخدام. بضع كلمات لا رابط بينها خيار جيد.`,
  'register.confirm': 'تأكيد كلمة المرور',
  'register.submit': 'إنشاء الحساب',
  'register.already': 'لديك حساب بالفعل؟',
  'register.signIn': 'تسجيل الدخول',

  'forgot.title': 'هل نسيت كلمة المرور؟',
  'forgot.intro':
    'أدخل عنوان بريدك الإلكتروني. إذا كان مرتبطًا بحساب، فسنرسل إليك رابطًا لاختيار كلمة مرور جديدة.',
  'forgot.email': 'البريد الإلكتروني',
  'forgot.submit': 'إرسال رابط إعادة التعيين',

  'reset.deadTitle': 'رابط إعادة التعيين هذا لم يعد صالحًا',
  'reset.deadText': 'تعمل روابط إعادة التعيين مرة واحدة فقط ولفترة قصيرة.',
  'reset.newLink': 'طلب رابط جديد',
  'reset.title': 'اختر كلمة مرور جديدة',
  'reset.password': 'كلمة المرور الجديدة',
  'reset.confirm': 'تأكيد كلمة المرور الجديدة',
  'reset.submit': 'حفظ كلمة المرور الجديدة',

  'home.signedInAs': ({ username, email }) => `تم تسجيل دخولك باسم ${username} (${email}).`,
  'home.account': 'حسابك',
  'home.sessions': 'الجلسات والأجهزة',
  'home.twoFactor': 'إعدادات المصادقة الثنائية',
  'home.tokens': 'رموز الوصول الشخصية',
  'home.password': 'كلمة المرور',
  'home.apiDocs': 'توثيق واجهة API',
  'home.welcome': 'مرحبًا بك.',
  'home.signIn': 'تسجيل الدخول',
  'home.register': 'إنشاء حساب',
  'home.or': ' أو ',

  'error.identifierRequired': 'أدخل بريدك الإلكتروني أو اسم المستخدم.',
  'error.usernameTaken': 'اسم المستخدم هذا مأخوذ بالفعل.',
  'error.emailTaken': 'عنوان البريد الإلكتروني هذا مسجّل بالفعل.',
  'error.invalidResetLink': 'رابط إعادة التعيين هذا غير صالح أو انتهت صلاحيته.',
  'error.invalidCredentials': 'بيانات الدخول غير صحيحة.',
  'error.credentials': 'البريد الإلكتروني أو اسم المستخدم أو كلمة المرور غير صحيح.',

  'answer.signedIn': 'تم تسجيل دخولك.',
  'answer.signedOut': 'تم تسجيل خروجك.',
  'answer.created': 'تم إنشاء حسابك وتسجيل دخولك.',
  'answer.activationPending': 'تم إنشاء حسابك. بقيت خطوة واحدة لتفعيله.',
  'answer.resetSent': 'إذا كان هذا العنوان مرتبطًا بحساب، فإن رابط إعادة تعيين كلمة المرور في الطريق إليه.',
  'answer.passwordReset': 'تم تغيير كلمة المرور. يرجى تسجيل الدخول بكلمة المرور الجديدة.',
  'mail.reset.subject': 'إعادة تعيين كلمة المرور',
  'mail.reset.intro': ({ username, minutes }, f) =>
    f.plural(minutes, {
      one: `طلب شخص ما إعادة تعيين كلمة مرور الحساب ${username}. إذا كنت أنت، فافتح الرابط خلال دقيقة واحدة.`,
      two: `طلب شخص ما إعادة تعيين كلمة مرور الحساب ${username}. إذا كنت أنت، فافتح الرابط خلال دقيقتين.`,
      few: `طلب شخص ما إعادة تعيين كلمة مرور الحساب ${username}. إذا كنت أنت، فافتح الرابط خلال # دقائق.`,
      many: `طلب شخص ما إعادة تعيين كلمة مرور الحساب ${username}. إذا كنت أنت، فافتح الرابط خلال # دقيقة.`,
      other: `طلب شخص ما إعادة تعيين كلمة مرور الحساب ${username}. إذا كنت أنت، فافتح الرابط خلال # دقيقة.`,
    }),
  'mail.reset.link': 'اختيار كلمة مرور جديدة',
  'mail.reset.outro': 'إذا لم تطلب ذلك، فتجاهل هذه الرسالة: ستبقى كلمة المرور كما هي.',
  'mail.registrationAttempt.subject': 'حاول شخص ما التسجيل بعنوان بريدك',
  'mail.registrationAttempt.intro': ({ app, username }) =>
    `حاول شخص ما إنشاء حساب على ${app} بعنوان البريد الإلكتروني هذا، وهو مرتبط بالفعل بحسابك ${username}. لم يُنشأ أي حساب جديد.`,
  'mail.registrationAttempt.outro':
    'إذا كنت أنت، فسجّل الدخول بدلًا من ذلك، أو استخدم «هل نسيت كلمة المرور؟» في صفحة تسجيل الدخول. وإن لم تكن أنت، فيمكنك تجاهل هذه الرسالة: لم يتغير شيء في حسابك.',
  'passkey.checking': 'جارٍ التحقق من مفتاح المرور…',
  'passkey.rejected': 'تعذّر تسجيل دخولك بمفتاح المرور هذا.',
  'passkey.notUsed': 'لم يُستخدم أي مفتاح مرور. يمكنك المحاولة مجددًا أو تسجيل الدخول بكلمة المرور.',
  'error.usernamePattern': 'يجب ألا يحتوي اسم المستخدم إلا على حروف وأرقام ومسافات.',
} satisfies Translation<AccountsEnglish>;
