/**
 * The fuzz suite's callers and the rows their requests name: a signed-in user with TOTP (and its
 * personal access token and service JWT), an organization owner acting in an organization with
 * members and pending invitations (and a token bound to it), an administrator in sudo mode, and
 * victims for the administrator's changes. The fuzz's own requests sign these callers out, disable,
 * demote or delete things; `ensure` checks each caller and repairs or re-creates it, so that the
 * whole run keeps reaching handlers as a real caller.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { grantAdminRole } from '../../src/auth/core/roles.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { TEST_PASSWORD } from '../support/app.ts';
import { insertComments, insertPosts, publicId, type BlogApp } from '../support/api-app.ts';
import { nextStep, totpCode } from '../support/factors.ts';
import type { Ref } from './fuzz-bodies.ts';
import { createClient, type NewClient } from '../../src/auth/oauth-provider/clients.ts';

export type Who = 'anonymous' | 'user' | 'pat' | 'jwt' | 'owner' | 'orgPat' | 'admin';
export const WHO: Who[] = ['anonymous', 'user', 'pat', 'jwt', 'owner', 'orgPat', 'admin'];

/** A browser session: its cookies and CSRF token. */
export interface Session {
  cookies: Map<string, string>;
  csrf: string;
}

const MEMBER_ROLES = ['admin', 'member', 'viewer'] as const;

export class FuzzWorld {
  user!: UserRecord;
  owner!: UserRecord;
  admin!: UserRecord;
  sessions: Partial<Record<'user' | 'owner' | 'admin', Session>> = {};
  bearers: Partial<Record<'pat' | 'jwt' | 'orgPat', string>> = {};
  /** Every TOTP secret the run enrolled: none may appear in an answer. */
  totpSecrets: string[] = [];
  organizationId = 0;
  /** An organization the owner is not a member of. */
  foreignOrganizationId = 0;
  members: UserRecord[] = [];
  victims: UserRecord[] = [];
  invitees: string[] = [];
  invitationIds: number[] = [];
  postIds: number[] = [];
  commentIds: number[] = [];
  projectIds: number[] = [];
  spareTokenIds: number[] = [];
  sessionHandles: string[] = [];
  /** OAuth clients (admin pages) the user consented to (connected apps). */
  oauthClientIds: string[] = [];
  /** How often a caller was signed in again or built anew (the report says). */
  rebuilt = 0;
  /** Time spent in each repair, and how often (the report says). */
  repairs = new Map<string, [number, number]>();

  private counter = 0;

  constructor(readonly t: BlogApp) {}

  async timed<T>(name: string, run: () => Promise<T>): Promise<T> {
    const began = performance.now();
    try {
      return await run();
    } finally {
      const [n, ms] = this.repairs.get(name) ?? [0, 0];
      this.repairs.set(name, [n + 1, ms + performance.now() - began]);
    }
  }

  private pick<T>(list: T[], fallback: T): T {
    this.counter += 1;
    return list.length ? list[this.counter % list.length]! : fallback;
  }

  /** A live value of the kind a generated request names. */
  resolve(ref: Ref): string | number {
    const t = this.t;
    switch (ref.kind) {
      case 'organization':
        return this.counter++ % 5 === 0 ? this.foreignOrganizationId : this.organizationId;
      case 'member':
        return this.counter++ % 6 === 0 ? this.owner.id : this.pick(this.members, this.owner).id;
      case 'invitation':
        return this.pick(this.invitationIds, 1);
      case 'victim':
        return this.pick([...this.victims, ...this.members], this.user).id;
      case 'email':
        return this.pick(
          [...this.invitees, ...this.victims.map((v) => v.email), ...this.members.map((m) => m.email)],
          'nobody@example.com',
        );
      case 'post':
        return publicId(t, this.pick(this.postIds, 1));
      case 'postRaw':
        return String(this.pick(this.postIds, 1));
      case 'comment':
        return publicId(t, this.pick(this.commentIds, 1), 'comments');
      case 'project':
        return publicId(t, this.pick(this.projectIds, 1), 'projects');
      case 'token':
        return this.pick(this.spareTokenIds, 999_999);
      case 'session':
        return this.pick(this.sessionHandles, 'nope');
      case 'oauthClient':
        return this.pick(this.oauthClientIds, 'no-such-client');
    }
  }

  // ---- HTTP plumbing ----

  async send(
    method: string,
    url: string,
    session: Session | undefined,
    body?: unknown,
    bearer?: string,
  ): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (session) {
      headers.cookie = cookieHeader(session);
      headers['x-csrf-token'] = session.csrf;
    }
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.t.app.inject({
      method: method as 'GET',
      url,
      headers,
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    if (session) absorbCookies(session, response);
    return response;
  }

  private async newSession(): Promise<Session> {
    const session: Session = { cookies: new Map(), csrf: '' };
    await this.refreshCsrf(session);
    return session;
  }

  async refreshCsrf(session: Session): Promise<void> {
    const page = await this.t.app.inject({
      url: '/login',
      headers: { accept: 'text/html', ...(session.cookies.size ? { cookie: cookieHeader(session) } : {}) },
    });
    absorbCookies(session, page);
    session.csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  }

  /** POST /login (and the TOTP step when asked); undefined when the account cannot sign in. */
  private async signIn(user: UserRecord, totpSecret?: string): Promise<Session | undefined> {
    const session = await this.newSession();
    for (let attempt = 0; attempt < 2; attempt++) {
      const login = await this.send('POST', '/login', session, {
        email: user.email,
        password: TEST_PASSWORD,
      });
      if (login.statusCode === 429) {
        this.t.clock.advance(3601);
        continue;
      }
      if (login.statusCode !== 200) return undefined;
      const action = JSON.parse(login.body).action;
      if (action === 'login.action_required') {
        if (!totpSecret) return undefined;
        nextStep(this.t);
        const done = await this.send('POST', '/action/handle', session, {
          code: totpCode(this.t, totpSecret),
        });
        if (done.statusCode === 429) {
          this.t.clock.advance(3601);
          continue;
        }
        if (done.statusCode !== 200) return undefined;
      } else if (action !== 'login.attempt') return undefined;
      await this.refreshCsrf(session);
      this.rebuilt += 1;
      return session;
    }
    return undefined;
  }

  /** Sudo mode for a session (TOTP when enrolled, else the password), waiting out a lock. */
  private async sudo(session: Session, totpSecret?: string): Promise<boolean> {
    const state = await this.send('GET', '/sudo', session);
    if (state.statusCode !== 200) return false;
    const data = JSON.parse(state.body).data;
    if (data?.active) return true;
    const factors: string[] = data?.factors ?? [];
    for (let attempt = 0; attempt < 3; attempt++) {
      let proof: Record<string, string>;
      if (totpSecret && factors.includes('totp')) {
        nextStep(this.t);
        proof = { factor: 'totp', proof: totpCode(this.t, totpSecret) };
      } else if (factors.includes('password')) proof = { factor: 'password', proof: TEST_PASSWORD };
      else return false;
      const verify = await this.send('POST', '/sudo/verify', session, proof);
      if (verify.statusCode === 200) return true;
      if (verify.statusCode !== 429) return false;
      this.t.clock.advance(3601);
    }
    return false;
  }

  /** Whether `session` is signed in as `user` (a fuzzed POST /login can switch it to another). */
  private async isSignedIn(session: Session | undefined, user: UserRecord | undefined): Promise<boolean> {
    if (!session || !user) return false;
    let me = await this.send('GET', '/me', session);
    // An administrator left acting as someone else: back to itself.
    if (me.statusCode === 200 && JSON.parse(me.body).impersonator) {
      await this.send('POST', '/admin/impersonation/stop', session);
      me = await this.send('GET', '/me', session);
    }
    return me.statusCode === 200 && JSON.parse(me.body).user?.id === user.id;
  }

  private async bearerWorks(token: string | undefined): Promise<boolean> {
    if (!token) return false;
    return (await this.send('GET', '/me', undefined, undefined, token)).statusCode === 200;
  }

  private async createToken(session: Session, body: Record<string, unknown>): Promise<[string, number]> {
    const created = await this.send('POST', '/tokens', session, { abilities: ['*'], ...body });
    if (created.statusCode !== 201)
      throw new Error(`fuzz world: token: ${created.statusCode} ${created.body}`);
    const parsed = JSON.parse(created.body);
    return [parsed.token, Number(parsed.token_id)];
  }

  private async createUser(verified = true): Promise<UserRecord> {
    return this.t.createUser({ emailVerified: verified });
  }

  // ---- the callers ----

  private userTotp?: string;

  /** A normal user with TOTP, its personal access token and a service JWT. */
  async ensureUser(): Promise<void> {
    let session = this.sessions.user;
    if (!(await this.isSignedIn(session, this.user))) {
      session = this.user ? await this.signIn(this.user, this.userTotp) : undefined;
      if (!session) {
        // Deleted, disabled, or the password changed by the fuzz: a new user.
        this.user = await this.createUser();
        session = await this.signIn(this.user);
        if (!session || !(await this.sudo(session))) throw new Error('fuzz world: new user');
        const start = await this.send('POST', '/two-factor/enroll/start', session, { factor: 'totp' });
        const secret = JSON.parse(start.body).data.secret as string;
        const confirm = await this.send('POST', '/two-factor/enroll/confirm', session, {
          factor: 'totp',
          proof: totpCode(this.t, secret),
        });
        if (confirm.statusCode !== 200) throw new Error(`fuzz world: TOTP: ${confirm.body}`);
        this.userTotp = secret;
        this.totpSecrets.push(secret);
        this.bearers.pat = undefined;
      }
      this.sessions.user = session;
    }
    if (!(await this.bearerWorks(this.bearers.pat))) {
      if (!(await this.sudo(session!, this.userTotp))) {
        // A factor the fuzz replaced or a password it changed: a new user.
        this.sessions.user = undefined;
        this.user = undefined as unknown as UserRecord;
        return this.ensureUser();
      }
      const [token] = await this.createToken(session!, { name: 'fuzz' });
      this.bearers.pat = token;
      const [, spare] = await this.createToken(session!, { name: 'spare' });
      this.spareTokenIds.push(spare);
    }
    if (!(await this.bearerWorks(this.bearers.jwt))) {
      const minted = await this.send('POST', '/token', session);
      if (minted.statusCode === 200) this.bearers.jwt = JSON.parse(minted.body).access_token;
    }
    // Posts of the user's own (so that its writes can succeed), and someone else's.
    const own = await this.t.db
      .selectFrom('posts')
      .select('id')
      .where('author_id', '=', this.user.id)
      .execute();
    if (own.length < 2)
      await insertPosts(this.t, this.user, [{ title: 'mine' }, { title: 'draft', status: 'draft' }]);
    const posts = await this.t.db.selectFrom('posts').select('id').orderBy('id', 'desc').limit(8).execute();
    this.postIds = posts.map((row) => Number(row.id));
  }

  /** An organization owner acting in its organization, with members, invitations and projects. */
  async ensureOwner(): Promise<void> {
    let session = this.sessions.owner;
    if (!(await this.isSignedIn(session, this.owner))) {
      session = this.owner ? await this.signIn(this.owner) : undefined;
      if (!session) {
        this.owner = await this.createUser();
        session = await this.signIn(this.owner);
        if (!session) throw new Error('fuzz world: new owner');
        this.organizationId = 0;
      }
      this.sessions.owner = session;
    }
    const db = this.t.db;
    const role = this.organizationId
      ? await db
          .selectFrom('organization_members')
          .select('role')
          .where('organization_id', '=', this.organizationId)
          .where('user_id', '=', this.owner.id)
          .executeTakeFirst()
      : undefined;
    if (role?.role !== 'owner') {
      // Deleted, or the owner demoted or removed by the fuzz: a new organization.
      const created = await this.send('POST', '/organizations', session, { name: `Fuzz ${++this.counter}` });
      if (created.statusCode === 429) {
        this.t.clock.advance(3601);
        return this.ensureOwner();
      }
      if (created.statusCode !== 201) throw new Error(`fuzz world: organization: ${created.body}`);
      this.organizationId = JSON.parse(created.body).data.organization.id;
      this.bearers.orgPat = undefined;
      this.projectIds = [];
    }
    // Members back with their roles, whatever the fuzz changed.
    if (this.members.length === 0)
      for (let i = 0; i < MEMBER_ROLES.length; i++) this.members.push(await this.createUser());
    await db
      .deleteFrom('organization_members')
      .where('organization_id', '=', this.organizationId)
      .where(
        'user_id',
        'in',
        this.members.map((m) => m.id),
      )
      .execute();
    await db
      .insertInto('organization_members')
      .values(
        this.members.map((m, i) => ({
          organization_id: this.organizationId,
          user_id: m.id,
          role: MEMBER_ROLES[i]!,
          created_at: new Date().toISOString(),
        })),
      )
      .execute();
    const me = await this.send('GET', '/me', session);
    if (JSON.parse(me.body).organization?.id !== this.organizationId)
      await this.send('POST', '/organizations/active', session, { organization_id: this.organizationId });
    if (!(await this.bearerWorks(this.bearers.orgPat))) {
      if (!(await this.sudo(session!))) {
        this.sessions.owner = undefined;
        this.owner = undefined as unknown as UserRecord;
        return this.ensureOwner();
      }
      const [token] = await this.createToken(session!, {
        name: 'fuzz-org',
        organization_id: this.organizationId,
      });
      this.bearers.orgPat = token;
      const [, spare] = await this.createToken(session!, { name: 'spare' });
      this.spareTokenIds.push(spare);
    }
    if (this.projectIds.length < 2) {
      for (const name of ['alpha', 'beta']) {
        const created = await this.send('POST', '/api/v1/projects', undefined, { name }, this.bearers.orgPat);
        if (created.statusCode !== 201) throw new Error(`fuzz world: project: ${created.body}`);
      }
    }
    const projects = await db
      .selectFrom('projects')
      .select('id')
      .where('organization_id', 'in', [this.organizationId, this.foreignOrganizationId])
      .execute();
    this.projectIds = projects.map((row) => Number(row.id));
  }

  /** An administrator in sudo mode; the victims of its changes are enabled again. */
  async ensureAdmin(): Promise<void> {
    let session = this.sessions.admin;
    if (!(await this.isSignedIn(session, this.admin))) {
      session = this.admin ? await this.signIn(this.admin) : undefined;
      if (!session) {
        this.admin = await this.createUser();
        await grantAdminRole(this.t.services.db, this.admin.email);
        session = await this.signIn(this.admin);
        if (!session) throw new Error('fuzz world: new admin');
      }
      this.sessions.admin = session;
    }
    if (!(await this.sudo(session!))) {
      // The password changed by the fuzz itself: a new administrator next time.
      this.sessions.admin = undefined;
      this.admin = undefined as unknown as UserRecord;
      return this.ensureAdmin();
    }
    const ids = [...this.victims, ...this.members].map((v) => v.id);
    if (ids.length)
      await this.t.db
        .updateTable('users')
        .set({ disabled_at: null, disabled_until: null })
        .where('id', 'in', ids)
        .execute();
  }

  /** Whether a caller is still signed in (its session or token answers GET /me). */
  async works(who: Who): Promise<boolean> {
    if (who === 'user' || who === 'owner' || who === 'admin') {
      return this.isSignedIn(this.sessions[who], this[who]);
    }
    if (who === 'anonymous') return true;
    return this.bearerWorks(this.bearers[who]);
  }

  async ensureAll(): Promise<void> {
    await this.ensureUser();
    await this.ensureOwner();
    await this.ensureAdmin();
    await this.topUp();
  }

  /** Pending invitations of the organization and live session handles, for the next requests. */
  private async topUp(): Promise<void> {
    const db = this.t.db;
    const session = this.sessions.owner;
    const pending = () =>
      db
        .selectFrom('organization_invitations')
        .select('id')
        .where('organization_id', '=', this.organizationId)
        .execute();
    if ((await pending()).length < 2) {
      const email = `invitee${++this.counter}-${process.pid}@example.com`;
      const invited = await this.send('POST', `/organizations/${this.organizationId}/invitations`, session, {
        email,
        role: 'member',
      });
      if (invited.statusCode === 201) this.invitees.push(email);
    }
    this.invitationIds = (await pending()).map((row) => Number(row.id));
    this.sessionHandles = [];
    for (const s of [this.sessions.user, this.sessions.owner]) {
      const list = s ? await this.send('GET', '/sessions', s) : undefined;
      if (list?.statusCode === 200)
        this.sessionHandles.push(...JSON.parse(list.body).data.sessions.map((x: { id: string }) => x.id));
    }
  }

  /** The rows the run starts with: posts, comments, victims, an organization the owner is not in. */
  async setUp(): Promise<void> {
    const author = await this.createUser();
    this.postIds = await insertPosts(this.t, author, [
      { title: 'one' },
      { title: 'two', status: 'draft' },
      { title: 'three' },
    ]);
    await insertComments(this.t, this.postIds[0]!, 3);
    const comments = await this.t.db.selectFrom('comments').select('id').execute();
    this.commentIds = comments.map((row) => Number(row.id));
    for (let i = 0; i < 3; i++) this.victims.push(await this.createUser());
    const stranger = await this.signIn(author);
    const foreign = await this.send('POST', '/organizations', stranger, { name: 'Elsewhere' });
    this.foreignOrganizationId = JSON.parse(foreign.body).data.organization.id;
    const project = await this.send('POST', '/api/v1/projects', stranger, { name: 'theirs' });
    if (project.statusCode !== 201) throw new Error(`fuzz world: foreign project: ${project.body}`);
    await this.ensureAll();
    // OAuth clients the user let in: the admin's client pages and the user's connected apps.
    for (let i = 0; i < 3; i++) {
      const { client } = await createClient(this.t.services.db, fuzzClient(i), this.t.clock.now());
      this.oauthClientIds.push(client.client_id);
      const at = this.t.clock.now().toISOString();
      await this.t.services.db
        .insertInto('oauth_consents')
        .values({
          user_id: this.user.id,
          client_id: client.client_id,
          scope: 'openid',
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    this.rebuilt = 0;
  }
}

/** A client for the fuzz's OAuth routes to name. */
function fuzzClient(i: number): NewClient {
  return {
    client_name: `Fuzz app ${i}`,
    redirect_uris: [`https://app${i}.example.com/cb`],
    post_logout_redirect_uris: [],
    application_type: 'web',
    token_endpoint_auth_method: i === 0 ? 'none' : 'client_secret_basic',
    scope: ['openid', 'profile', 'posts:read'],
    id_token_signed_response_alg: 'RS256',
    registration: i === 2 ? 'dynamic' : 'admin',
  };
}

/** What the run reads of an answer, from inject or over TCP. */
export interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
  cookies: { name: string; value: string; maxAge?: number; expires?: Date }[];
}

/** The request as written, over a real connection to the listening app (no URL normalization). */
export function overTcp(
  app: FastifyInstance,
  method: string,
  path: string,
  headers: Record<string, string>,
  payload?: string,
): Promise<Answer> {
  const { port } = app.server.address() as AddressInfo;
  // Node sends a DELETE's body without a length unless told: the server would read no body.
  const length = payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(payload)) };
  return new Promise((resolve, reject) => {
    // No keep-alive agent: a live stream cut below must not hand its socket to the next request.
    const options = {
      host: '127.0.0.1',
      port,
      method,
      path,
      headers: { ...headers, ...length },
      agent: false,
    };
    const req = httpRequest(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const answer = (): Answer => {
        const setCookie = res.headers['set-cookie'] ?? [];
        return {
          statusCode: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: res.headers,
          cookies: setCookie.map((line) => {
            const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
            const at = pair.indexOf('=');
            const cookie: Answer['cookies'][number] = { name: pair.slice(0, at), value: pair.slice(at + 1) };
            for (const attribute of attributes) {
              const [key = '', value = ''] = attribute.split('=');
              if (key.toLowerCase() === 'max-age') cookie.maxAge = Number(value);
              if (key.toLowerCase() === 'expires') cookie.expires = new Date(value);
            }
            return cookie;
          }),
        };
      };
      // A live stream (Server-Sent Events) does not end: what it sent in 50 ms is its answer.
      if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream'))
        setTimeout(() => {
          const cut = answer();
          req.destroy();
          resolve(cut);
        }, 50);
      res.once('end', () => resolve(answer()));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export function cookieHeader(session: Session): string {
  return [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
}

/** Keep what the server set (a sudo change or rotation replaces the session cookie). */
export function absorbCookies(session: Session, response: Pick<Answer, 'cookies'>): void {
  for (const c of response.cookies) {
    const expired =
      (c.maxAge !== undefined && c.maxAge <= 0) ||
      (c.expires !== undefined && c.expires.getTime() <= Date.now());
    if (expired || c.value === '') session.cookies.delete(c.name);
    else session.cookies.set(c.name, c.value);
  }
}
