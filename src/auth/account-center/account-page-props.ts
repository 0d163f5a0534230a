import { type EndpointInput, isSudoActive } from '../../plugin-api.ts';
import type { AccountPageProps } from './pages.ts';

/** What the account pages need besides the outcome: the stored user and whether sudo is active. */
export async function accountPageProps(request: EndpointInput): Promise<AccountPageProps> {
  const { caller, services } = request;
  const retentionDays = services.config.eventRetentionDays;
  if (caller?.via !== 'session') return { needsSudo: false, retentionDays };
  const user = await services.users.findById(caller.user.id);
  return {
    user: user && {
      username: user.username,
      email: user.email,
      created_at: user.created_at,
      has_password: user.password_hash !== null,
      locale: user.locale,
    },
    needsSudo: !(await isSudoActive(request)),
    retentionDays,
  };
}
