import { randomToken, sha256Hex } from '../../core/crypto.ts';
import type { SessionData, SessionStore } from './store.ts';

export interface Flash {
  type: 'success' | 'info' | 'error';
  message: string;
}

/**
 * One request's view of its server-side session. Nothing is stored until something is set, so
 * anonymous API traffic costs no writes. `regenerate()` changes the id (sign-in, sign-out, sudo) to
 * defeat fixation; the old row is removed when the session is saved.
 */
export class Session {
  /** The raw cookie value: only ever in the cookie, stored as its SHA-256. */
  private rawId: string | null;
  private previousIdHash: string | null = null;
  private data: SessionData;
  private _userId: number | null;
  private dirty = false;
  private destroyed = false;

  constructor(
    rawId: string | null,
    userId: number | null,
    data: SessionData,
    private readonly loadedAt: { expiresAt: string | null },
  ) {
    this.rawId = rawId;
    this._userId = userId;
    this.data = data;
  }

  get userId(): number | null {
    return this._userId;
  }

  /** The hashed id, the key in the store; null before the session is first saved. */
  get idHash(): string | null {
    return this.rawId ? sha256Hex(this.rawId) : null;
  }

  get cookieValue(): string | null {
    return this.rawId;
  }

  get isDirty(): boolean {
    return this.dirty;
  }

  get expiresAt(): string | null {
    return this.loadedAt.expiresAt;
  }

  get<T>(key: string): T | undefined {
    return this.data[key] as T | undefined;
  }

  set(key: string, value: unknown): void {
    if (value === undefined) delete this.data[key];
    else this.data[key] = value;
    this.dirty = true;
  }

  delete(key: string): void {
    if (key in this.data) {
      delete this.data[key];
      this.dirty = true;
    }
  }

  /** Sign a user in (or out, with null): always with a fresh id. */
  setUser(userId: number | null): void {
    this._userId = userId;
    this.regenerate();
  }

  /** New id, same data. */
  regenerate(): void {
    if (this.rawId && !this.previousIdHash) this.previousIdHash = sha256Hex(this.rawId);
    this.rawId = randomToken(32);
    this.dirty = true;
  }

  /** Sign-out: everything goes (pending actions, sudo, enrollment secrets) and the id changes. */
  clear(): void {
    this.data = {};
    this._userId = null;
    this.regenerate();
  }

  flash(type: Flash['type'], message: string): void {
    this.set('flash', { type, message } satisfies Flash);
  }

  /** Read the flash message once. */
  takeFlash(): Flash | undefined {
    const flash = this.get<Flash>('flash');
    if (flash) this.delete('flash');
    return flash;
  }

  /** Mark the session as ended without writing anything for it. */
  markDestroyed(): void {
    this.destroyed = true;
    this.dirty = true;
  }

  get isDestroyed(): boolean {
    return this.destroyed;
  }

  /** Persist: writes the new row, removes the one a regenerate() replaced. */
  async save(store: SessionStore, expiresAt: string): Promise<void> {
    if (this.previousIdHash) {
      await store.destroy(this.previousIdHash);
      this.previousIdHash = null;
    }
    if (this.destroyed) {
      if (this.rawId) await store.destroy(sha256Hex(this.rawId));
      return;
    }
    if (!this.rawId) this.rawId = randomToken(32);
    await store.save(sha256Hex(this.rawId), { userId: this._userId, data: this.data, expiresAt });
    this.loadedAt.expiresAt = expiresAt;
    this.dirty = false;
  }
}
