import { randomToken, sha256Hex } from '../../core/crypto.ts';
import type {
  EndedSession,
  SessionCompanion,
  SessionData,
  SessionEndNote,
  SessionStore,
  StoredSession,
} from './store.ts';
import type { UserRecord } from '../security/caller.ts';

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
  /** The id in `rawId` has a row in the store (loaded with one, or saved): save updates it. */
  private stored: boolean;
  /** clear() or setUser() ran: what is saved no longer depends on the row it was loaded from. */
  private restarted = false;
  /** Kept apart from `data`: a sign-out's clear() must not drop its own event. */
  private companions: SessionCompanion[] = [];
  /**
   * The stored row as loaded (its data is copied before the first change), for the store's end
   * watchers when this request removes that row; null without one.
   */
  private readonly loaded: { rawId: string; userId: number | null; data: SessionData } | null;
  private endNote: SessionEndNote | undefined;

  constructor(
    rawId: string | null,
    userId: number | null,
    data: SessionData,
    private readonly loadedAt: { expiresAt: string | null },
    /** The user row read with the session (database store), for the caller's resolution. */
    readonly loadedUser: UserRecord | null = null,
  ) {
    this.rawId = rawId;
    this.stored = rawId !== null;
    this._userId = userId;
    this.data = data;
    this.stored = rawId !== null;
    this.loaded = rawId === null ? null : { rawId, userId, data };
  }

  /** The data to change: a copy of the loaded data, made on the first change. */
  private writable(): SessionData {
    if (this.loaded && this.data === this.loaded.data) this.data = { ...this.data };
    return this.data;
  }

  /** Why and from where this request ends its session (told to the store's end watchers). */
  noteEnd(note: SessionEndNote): void {
    this.endNote = note;
  }

  /** The loaded row, as the end watchers are told of it, when `idHash` is its key. */
  private endedAs(idHash: string): EndedSession | undefined {
    if (!this.loaded || sha256Hex(this.loaded.rawId) !== idHash) return undefined;
    const { userId, data } = this.loaded;
    return { userId, data, cause: 'ended', ...(this.endNote ? { note: this.endNote } : {}) };
  }

  /** The data of the stored row this save replaces (a sign-in or sign-out's), if known. */
  get replacedData(): SessionData | null {
    return this.previousIdHash !== null && this.loaded ? this.loaded.data : null;
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
    if (value === undefined) delete this.writable()[key];
    else this.writable()[key] = value;
    this.dirty = true;
  }

  delete(key: string): void {
    if (key in this.data) {
      delete this.writable()[key];
      this.dirty = true;
    }
  }

  /** Sign a user in (or out, with null): always with a fresh id. */
  setUser(userId: number | null): void {
    this._userId = userId;
    this.restarted = true;
    this.regenerate();
  }

  /** New id, same data. */
  regenerate(): void {
    // Only a stored id has a row to remove; one made earlier in this request never reached the store.
    if (this.rawId && this.stored && !this.previousIdHash) this.previousIdHash = sha256Hex(this.rawId);
    this.rawId = randomToken(32);
    this.stored = false;
    this.dirty = true;
  }

  /** Sign-out: everything goes (pending actions, sudo, enrollment secrets) and the id changes. */
  clear(): void {
    this.data = {};
    this._userId = null;
    this.restarted = true;
    this.regenerate();
  }

  /** Store `companion` with this request's session change (the session is saved on send). */
  alongWithSave(companion: SessionCompanion): void {
    this.companions.push(companion);
    this.dirty = true;
  }

  /**
   * This save is one new row, replacing at most the row of the id a sign-in or sign-out left
   * behind (whether that row still exists does not matter then): a store can insert it, remove
   * the old one and insert the companion rows in a single statement (`saveAsNewRow`).
   */
  get savesANewRow(): boolean {
    return !this.destroyed && !this.stored && (this.previousIdHash === null || this.restarted);
  }

  /**
   * Save a session for which `savesANewRow` holds through `write`, which must insert the new row
   * and delete the replaced one (if any) atomically.
   */
  async saveAsNewRow(
    expiresAt: string,
    write: (idHash: string, record: StoredSession, replaces: string | null) => Promise<void>,
  ): Promise<boolean> {
    if (!this.savesANewRow) throw new Error('saveAsNewRow: not a new row');
    if (!this.rawId) this.rawId = randomToken(32);
    const replaces = this.previousIdHash;
    await write(sha256Hex(this.rawId), { userId: this._userId, data: this.data, expiresAt }, replaces);
    this.previousIdHash = null;
    this.stored = true;
    this.loadedAt.expiresAt = expiresAt;
    this.dirty = false;
    return true;
  }

  /** The companions still to be written; taking them empties the list. */
  takeCompanions(): SessionCompanion[] {
    const taken = this.companions;
    this.companions = [];
    return taken;
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

  /**
   * Persist: removes the row a regenerate() replaced, then updates the stored row or inserts the new
   * id. False when nothing was written because the session was ended meanwhile (by sign-out, a
   * reset or a revocation on another request): its state, user id included, must not come back.
   */
  async save(store: SessionStore, expiresAt: string): Promise<boolean> {
    if (this.previousIdHash) {
      const existed = await store.destroy(this.previousIdHash, this.endedAs(this.previousIdHash));
      this.previousIdHash = null;
      // A rotation of a session that is gone would carry its state over to a new id.
      if (!existed && !this.restarted) this.destroyed = true;
    }
    if (this.destroyed) {
      if (this.rawId && this.stored) {
        const idHash = sha256Hex(this.rawId);
        await store.destroy(idHash, this.endedAs(idHash));
      }
      return false;
    }
    if (!this.rawId) this.rawId = randomToken(32);
    const record = { userId: this._userId, data: this.data, expiresAt };
    if (this.stored) {
      if (!(await store.update(sha256Hex(this.rawId), record))) {
        this.destroyed = true;
        return false;
      }
    } else {
      await store.insert(sha256Hex(this.rawId), record);
      this.stored = true;
    }
    this.loadedAt.expiresAt = expiresAt;
    this.dirty = false;
    return true;
  }
}
