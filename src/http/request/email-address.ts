/**
 * Email addresses as Citadel accepts them: one RFC 5321 mailbox, `local@domain`, and
 * nothing a mail library could read as more than one recipient or as another one. Display names,
 * lists, comments, quoted local parts and address literals are refused: `"<victim@corp>"a.b` and
 * `victim@corp,x.y` pass a looser check, and nodemailer delivers them to `victim@corp`.
 * Non-ASCII letters are allowed (RFC 6531), never non-ASCII spaces, controls or punctuation.
 */

/** RFC 5322 atext, plus letters, marks and digits beyond ASCII. */
const ATOM = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\p{L}\p{M}\p{N}]+$/u;
/** A domain label: letters (any script), digits, inner hyphens. */
const LABEL = /^[A-Za-z0-9\p{L}\p{M}\p{N}](?:[A-Za-z0-9\-\p{L}\p{M}\p{N}]*[A-Za-z0-9\p{L}\p{M}\p{N}])?$/u;
const MAX_LOCAL = 64;
const MAX_LABEL = 63;
const MAX_ADDRESS = 254;

/** The mailbox in its stored form (trimmed, lower-cased), or null when `text` is not exactly one. */
export function parseMailbox(text: string): string | null {
  const address = text.trim().toLowerCase();
  if (address.length === 0 || address.length > MAX_ADDRESS) return null;
  const at = address.indexOf('@');
  if (at < 1 || at !== address.lastIndexOf('@')) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > MAX_LOCAL) return null;
  // Dot-string: atoms joined by single dots (no leading, trailing or doubled dot).
  if (!local.split('.').every((atom) => ATOM.test(atom))) return null;
  const labels = domain.split('.');
  if (labels.length < 2) return null;
  if (!labels.every((label) => label.length <= MAX_LABEL && LABEL.test(label))) return null;
  // A top-level domain is never all digits (that would be an IP address, which is refused).
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return null;
  return address;
}
