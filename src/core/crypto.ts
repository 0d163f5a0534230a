import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** URL-safe random string from `bytes` random bytes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The SHA-256 digest of `value` (UTF-8), in hex: what is stored of a token instead of the token. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time string comparison; unequal lengths compare as unequal without an early exit on content. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/**
 * Keys derived from the server secret, one per purpose, so a key used for one thing (say, code HMACs)
 * never doubles as another (say, TOTP-secret encryption).
 */
export class SecretBox {
  private readonly secret: Buffer;
  private readonly keys = new Map<string, Buffer>();

  constructor(serverSecret: string) {
    this.secret = Buffer.from(serverSecret);
  }

  key(purpose: string): Buffer {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.secret, Buffer.alloc(0), `citadel:${purpose}`, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }

  /** HMAC-SHA-256 (hex) of a short secret such as an emailed code: what gets stored instead of it. */
  hmac(purpose: string, value: string): string {
    return createHmac('sha256', this.key(`hmac:${purpose}`))
      .update(value)
      .digest('hex');
  }

  /** AES-256-GCM; the output carries its nonce and tag: `v1.<nonce>.<tag>.<ciphertext>` in base64url. */
  encrypt(purpose: string, plaintext: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key(`enc:${purpose}`), nonce);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', nonce, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  decrypt(purpose: string, sealed: string): string {
    const [version, nonce, tag, body] = sealed.split('.');
    if (version !== 'v1' || !nonce || !tag || body === undefined) throw new Error('malformed ciphertext');
    const decipher = createDecipheriv(
      'aes-256-gcm',
      this.key(`enc:${purpose}`),
      Buffer.from(nonce, 'base64url'),
    );
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
