import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from './services.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts';

/** A free loopback port: an app URL (emailed links, the WebAuthn origin) must name it before start. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A test app listening on a real loopback port, with `appUrl` naming it. Use `localhost` as the
 * host name where the browser needs a domain (a WebAuthn RP ID cannot be an IP address).
 */
export async function startListeningTestApp(
  options: TestAppOptions = {},
  hostname: '127.0.0.1' | 'localhost' = '127.0.0.1',
): Promise<{ t: TestApp; base: string }> {
  const port = await freePort();
  const base = `http://${hostname}:${port}`;
  const t = await startTestApp({ ...options, appUrl: base });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, base };
}

export interface ChromiumSession {
  context: BrowserContext;
  /** Closes the browser and removes its throwaway profile. */
  close(): Promise<void>;
}

/**
 * Debian's Chromium, headless, in a new empty profile, with the flags that keep it from reaching
 * for the network on its own (this machine has none).
 */
export async function launchChromium(): Promise<ChromiumSession> {
  const profile = mkdtempSync(join(tmpdir(), 'citadel-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A page's virtual passkey authenticator (Chromium's WebAuthn domain), and the session that drives it. */
export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
}

/**
 * Give `page` a platform authenticator that holds resident keys and verifies its user (a laptop's
 * fingerprint reader). `autofill: false` makes the page report no conditional mediation, so the
 * sign-in page takes its button path instead of offering the passkey in the field's autofill.
 */
export async function addVirtualAuthenticator(
  page: Page,
  { autofill = true }: { autofill?: boolean } = {},
): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  if (!autofill)
    await page.addInitScript(() => {
      Object.defineProperty(window.PublicKeyCredential, 'isConditionalMediationAvailable', {
        value: () => Promise.resolve(false),
      });
    });
  return { cdp, authenticatorId };
}

export interface BrowserApp {
  t: TestApp;
  base: string;
  browser: BrowserContext;
  /** Closes the browser, then the app. */
  close(): Promise<void>;
}

/**
 * A listening test app on `localhost` (a WebAuthn RP ID cannot be an IP address) and Chromium in a
 * new profile; `shots`, when given, is the screenshot folder, made first.
 */
export async function startBrowserApp(options: TestAppOptions = {}, shots?: string): Promise<BrowserApp> {
  if (shots !== undefined) mkdirSync(shots, { recursive: true });
  const { t, base } = await startListeningTestApp(options, 'localhost');
  let session: ChromiumSession;
  try {
    session = await launchChromium();
  } catch (error) {
    await t.close();
    throw error;
  }
  return {
    t,
    base,
    browser: session.context,
    async close() {
      await session.close();
      await t.close();
    },
  };
}

/** Sign in through the HTML sign-in form and wait until the browser lands on `landing`. */
export async function signInOnPage(
  page: Page,
  base: string,
  credentials: { email: string; password: string },
  landing: string,
): Promise<void> {
  await page.goto(`${base}/login`);
  await page.fill('#field-email', credentials.email);
  await page.fill('#field-password', credentials.password);
  await page.click('form[action="/login"] button[type=submit]');
  await page.waitForURL(`${base}${landing}`);
}
