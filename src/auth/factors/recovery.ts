import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type CitadelServices, type Database, safeEqual, type Factor } from '../../plugin-api.ts';

export const RECOVERY_CODE_COUNT = 10;
/** No 0/o, 1/l/i: easy to copy by hand. 10 characters of 32 = 50 bits, each code single use. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const HMAC_PURPOSE = 'recovery_code';

function newCode(): string {
  let code = '';
  for (let i = 0; i < 10; i += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** Case, spaces and dashes do not matter when a code is typed back. */
function normalize(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

export async function recoveryCodesRemaining(services: CitadelServices, userId: number): Promise<number> {
  const row = await services.db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A fresh set replacing any previous one. The plain codes exist only in the return value. */
export async function issueRecoveryCodes(
  services: CitadelServices,
  userId: number,
  /** A transaction of the caller's (the change's event commits with it); else one of its own. */
  db?: Kysely<Database>,
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const now = services.clock.now().toISOString();
  const replace = async (trx: Kysely<Database>) => {
    await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await trx
      .insertInto('recovery_codes')
      .values(
        codes.map((code) => ({
          user_id: userId,
          code_hash: services.secrets.hmac(HMAC_PURPOSE, normalize(code)),
          used_at: null,
          created_at: now,
        })),
      )
      .execute();
  };
  if (db) await replace(db);
  else await services.db.transaction().execute(replace);
  return codes;
}

export async function deleteRecoveryCodes(
  services: CitadelServices,
  userId: number,
  db: Kysely<Database> = services.db,
): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

/** Use one code: compared in constant time against each unused code, then marked used atomically. */
export async function useRecoveryCode(
  services: CitadelServices,
  userId: number,
  proof: unknown,
): Promise<boolean> {
  if (typeof proof !== 'string' || proof.length > 64) return false;
  const digest = services.secrets.hmac(HMAC_PURPOSE, normalize(proof));
  const rows = await services.db
    .selectFrom('recovery_codes')
    .select(['id', 'code_hash'])
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
  let match: number | null = null;
  for (const row of rows) if (safeEqual(row.code_hash, digest)) match = row.id;
  if (match === null) return false;
  const result = await services.db
    .updateTable('recovery_codes')
    .set({ used_at: services.clock.now().toISOString() })
    .where('id', '=', match)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const recoveryCodeFactor: Factor = {
  id: 'recovery_code',
  label: 'Recovery code',
  async isAvailable(request, user) {
    return (await recoveryCodesRemaining(request.services, user.id)) > 0;
  },
  async challenge() {
    return {};
  },
  async verify(request, user, proof) {
    return useRecoveryCode(request.services, user.id, proof);
  },
};
