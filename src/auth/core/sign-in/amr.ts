/**
 * Authentication method references (RFC 8176 `amr`) of a sign-in: how the user first proved who
 * they are, then every step of the pipeline they passed. Relying parties read them in ID tokens.
 */

/** The first credential, by the sign-in path that checked it. */
export function credentialAmr(path: string): string[] {
  if (path === '/login' || path === '/register') return ['pwd'];
  if (path.startsWith('/magic-link')) return ['email'];
  if (path.startsWith('/passkey')) return ['hwk'];
  // A social provider vouched for the user: no method of ours to name.
  return [];
}

/** What passing a pipeline step proved: its factor (`proved` in its state), or an emailed code. */
export function stepAmr(actionId: string, state: Record<string, unknown> | undefined): string[] {
  if (actionId === 'email_2fa' || actionId === 'email_activation') return ['email'];
  const proved = state?.proved;
  if (proved === 'totp' || proved === 'recovery') return ['otp'];
  if (proved === 'passkey') return ['hwk'];
  return [];
}

/** The methods together, each once, with `mfa` when two different ones were proved. */
export function completeAmr(methods: readonly string[]): string[] {
  const unique = [...new Set(methods)];
  return unique.length >= 2 ? [...unique, 'mfa'] : unique;
}
