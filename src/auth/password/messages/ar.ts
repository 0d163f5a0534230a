import type { Translation } from '../../../plugin-api.ts';
import type { PasswordEnglish } from './en.ts';

export const ar = {
  'page.changeTitle': 'تغيير كلمة المرور',
  'page.setTitle': 'تعيين كلمة مرور',
  'page.changeIntro': 'يؤدي تغيير كلمة المرور إلى تسجيل خروجك من كل مكان آخر. قد يُطلب منك تأكيد هويتك أولًا.',
  'page.setIntro':
    'لقد أنشأت حسابك عبر خدمة تسجيل دخول خارجية. عيّن كلمة مرور لتتمكن أيضًا من تسجيل الدخول ببريدك الإلكتروني أو اسم المستخدم.',
  'page.newPassword': 'كلمة المرور الجديدة',
  'page.confirmPassword': 'تأكيد كلمة المرور الجديدة',
  'page.change': 'تغيير كلمة المرور',
  'page.set': 'تعيين كلمة المرور',
  'answer.changed': 'تم تغيير كلمة المرور.',
  'answer.set': 'تم تعيين كلمة المرور. يمكنك الآن تسجيل الدخول بها.',
} satisfies Translation<PasswordEnglish>;
