import type { Factor } from '../../plugin-api.ts';

/** The account password, as a sudo proof only (it is never a second factor). */
export const passwordFactor: Factor = {
  id: 'password',
  label: 'Password',
  // A password is the first factor: it proves nothing more at the two-factor step.
  scopes: ['sudo'],
  async isAvailable(_request, user) {
    return Boolean(user.password_hash);
  },
  async challenge() {
    return {};
  },
  async verify(request, user, proof) {
    if (!user.password_hash || typeof proof !== 'string' || proof.length === 0 || proof.length > 1024)
      return false;
    return request.services.passwords.verify(user.password_hash, proof);
  },
};
