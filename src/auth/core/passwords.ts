import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot read). */
const ARGON2ID = 2;
import { dictionary } from '@zxcvbn-ts/language-common';

/** OWASP's Argon2id minimum: 19 MiB, 2 passes, 1 lane. */
export interface Argon2Parameters {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

export const DEFAULT_ARGON2: Argon2Parameters = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** About 49,000 passwords seen most often in breaches, lower-cased, from zxcvbn-ts's dictionary. */
const COMMON_PASSWORDS = new Set((dictionary.passwords as string[]).map((p) => p.toLowerCase()));

export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}

/** Hashing and verification of account passwords with Argon2id. */
export class PasswordHasher {
  private dummyHash: Promise<string> | null = null;

  constructor(private readonly params: Argon2Parameters = DEFAULT_ARGON2) {}

  hash(password: string): Promise<string> {
    return hash(password, { algorithm: ARGON2ID, ...this.params });
  }

  async verify(storedHash: string, password: string): Promise<boolean> {
    try {
      return await verify(storedHash, password);
    } catch {
      return false;
    }
  }

  /**
   * Spend the same work as a real verification when there is no account (or no password), so the
   * response time does not tell whether an account exists.
   */
  async verifyDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash('citadel-dummy-password-for-timing');
    await this.verify(await this.dummyHash, password);
    return false;
  }

  /** True when a stored hash was made with other parameters: rehash it at the next sign-in. */
  needsRehash(storedHash: string): boolean {
    const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(storedHash);
    if (!match) return true;
    return (
      Number(match[1]) !== this.params.memoryCost ||
      Number(match[2]) !== this.params.timeCost ||
      Number(match[3]) !== this.params.parallelism
    );
  }
}
