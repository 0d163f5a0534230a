import type { Translation } from '../../../plugin-api.ts';
import type { TokensEnglish } from './en.ts';

export const ar = {
  'page.title': 'رموز الوصول الشخصية',
  'page.copyNow': 'انسخ رمزك الجديد الآن.',
  'page.shownOnce': 'لن يُعرض مرة أخرى.',
  'page.copy': 'نسخ الرمز',
  'page.intro': 'تتيح رموز الوصول للبرامج النصية وعملاء API التصرف باسمك. أرسل الرمز في ترويسة HTTP هذه:',
  'page.none': 'ليست لديك أي رموز وصول.',
  'page.name': 'الاسم',
  'page.abilities': 'الصلاحيات',
  'page.lastUsed': 'آخر استخدام',
  'page.neverUsed': 'لم يُستخدم قط',
  'page.expires': 'تنتهي صلاحيته في',
  'page.noExpiry': 'لا تنتهي صلاحيته',
  'page.actions': 'الإجراءات',
  'page.revoke': 'إبطال',
  'page.revokeConfirm': ({ name }) => `هل تريد إبطال الرمز «${name}»؟ سيتوقف كل ما يستخدمه عن العمل.`,
  'page.createTitle': 'إنشاء رمز',
  'page.sudoNotice':
    'يتطلب إنشاء رمز تأكيدًا حديثًا لهويتك. سيُطلب منك ذلك عند الإرسال، ثم تعود إلى هنا مع ما كتبته.',
  'page.confirmNow': 'التأكيد الآن',
  'page.nameHint': 'الغرض من الرمز، مثل «النشر الآلي».',
  'page.abilitiesHint':
    'افصل بينها بفواصل أو مسافات، مثل posts:read, posts:create. اترك الحقل فارغًا لمنح كل الصلاحيات (*).',
  'page.expiresOn': 'تاريخ انتهاء الصلاحية (اختياري)',
  'page.expiresHint': 'يتوقف الرمز عن العمل في بداية ذلك اليوم (00:00 بالتوقيت العالمي).',
  'page.create': 'إنشاء الرمز',

  'error.noAbility': 'حدّد صلاحية واحدة على الأقل، أو احذف الحقل لاستخدام «*».',
  'error.tooManyAbilities': ({ max }, f) =>
    f.plural(max, {
      one: 'لا يمكن أن يحمل الرمز أكثر من صلاحية واحدة.',
      two: 'لا يمكن أن يحمل الرمز أكثر من صلاحيتين.',
      few: 'لا يمكن أن يحمل الرمز أكثر من # صلاحيات.',
      many: 'لا يمكن أن يحمل الرمز أكثر من # صلاحية.',
      other: 'لا يمكن أن يحمل الرمز أكثر من # صلاحية.',
    }),
  'error.abilityFormat':
    'يجب أن تكون كل صلاحية «*» أو «<resource>:*» أو «<resource>:read|create|update|delete».',
  'error.expiryFormat': 'يجب أن يكون تاريخ الانتهاء طابعًا زمنيًا بصيغة ISO 8601، مثل 2030-01-31T12:00:00Z.',
  'error.expiryPast': 'يجب أن يكون تاريخ الانتهاء في المستقبل.',
  'error.expiryBeyondCaller': 'لا يمكن أن يتجاوز تاريخ الانتهاء تاريخ انتهاء الرمز الذي أرسل الطلب.',
  'error.sameOrganization': 'الرمز الذي يُنشئه رمز آخر يعمل في المؤسسة نفسها.',
  'error.notMember': 'لست عضوًا في هذه المؤسسة.',
  'error.abilitiesBeyondCaller': 'لا يمكن للرمز أن يُنشئ رموزًا إلا بصلاحيات يملكها هو نفسه.',
  'error.notFound': 'الرمز غير موجود.',

  'answer.created': 'تم إنشاء الرمز. انسخه الآن، فلن يُعرض مرة أخرى.',
  'answer.revoked': 'تم إبطال الرمز.',
  'error.abilitiesList': 'يجب أن تكون الصلاحيات قائمة بأسماء صلاحيات.',
} satisfies Translation<TokensEnglish>;
