// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { brandMessage } from '../../src/mail/branding.ts';
import { composeMail } from '../../src/mail/templates.ts';
import { loadConfig } from '../../src/config/load.ts';

/** What APP_NAME may be: 1 to 64 characters, no line break, not blank at either end. */
const appName = fc
  .string({ minLength: 1, maxLength: 64, unit: 'grapheme' })
  .map((s) => s.replace(/[\r\n]/g, ' ').trim())
  .filter((s) => s.length > 0 && s.length <= 64);

describe('APP_NAME on every message (brandMessage)', () => {
  it('prefixes the subject once, signs both bodies, and never lets the name become markup', () => {
    fc.assert(
      fc.property(
        appName,
        fc.string({ maxLength: 80 }),
        fc.string({ maxLength: 200 }),
        (name, subject, intro) => {
          const message = composeMail('a@example.com', { subject, intro });
          const branded = brandMessage(message, name);
          expect(branded.subject).toBe(`${name}: ${subject}`);
          // Branding twice changes nothing more (a plugin may brand its own subject already).
          expect(brandMessage(branded, name).subject).toBe(branded.subject);
          expect(branded.text.startsWith(message.text)).toBe(true);
          expect(branded.text.endsWith(`This message was sent by ${name}.`)).toBe(true);
          // The HTML keeps its frame; the name is escaped inside it.
          expect(branded.html.trimEnd().endsWith('</html>')).toBe(true);
          const withoutName = branded.html.replace(
            message.html.slice(0, message.html.lastIndexOf('</body>')),
            '',
          );
          expect(withoutName).not.toMatch(/<(?!\/?(p|body|html)\b)/);
          expect(branded.to).toBe('a@example.com');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the default sender is APP_NAME', () => {
  it('parses back as one address whose display name is APP_NAME, whatever the name holds', () => {
    fc.assert(
      fc.property(appName, (name) => {
        const config = loadConfig({
          env: {},
          appName: name,
          sessionSecret: 'x'.repeat(40),
          dataDir: '/tmp/x',
        });
        const parsed = addressparser(config.mailFrom, { flatten: true });
        expect(parsed).toEqual([{ name, address: 'no-reply@localhost' }]);
      }),
      { numRuns: 300 },
    );
  });
});
