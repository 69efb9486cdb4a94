// Email addresses as account names. One canonical spelling per mailbox, so look-alikes cannot become a second
// account: NFKC folds compatibility forms (fullwidth ａ -> a, ligatures), then trim and lower-case. The shape
// check is deliberately plain (no quoted local parts, no IP literals): what real sign-up forms accept.
export const MAX_EMAIL_LENGTH = 254; // RFC 5321 path limit minus the angle brackets
const MAX_LOCAL_LENGTH = 64;
const MAX_LABEL_LENGTH = 63;

// C0/C1 controls, DEL, zero-width and bidi controls, BOM: invisible characters that make two addresses look equal.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;
// Local part: RFC 5322 dot-atom characters, plus non-ASCII letters and digits (RFC 6531 internationalised mail).
const LOCAL = /^[\p{L}\p{N}\p{M}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}\p{M}!#$%&'*+/=?^_`{|}~-]+)*$/u;
// Domain label: letters, digits and inner hyphens (IDN labels in Unicode or punycode xn--).
const LABEL = /^[\p{L}\p{N}\p{M}](?:[\p{L}\p{N}\p{M}-]*[\p{L}\p{N}\p{M}])?$/u;
const TLD = /^(?:[\p{L}\p{M}]{2,}|xn--[a-z0-9-]{2,})$/u;

export function normaliseEmail(email: string): string {
  return email.normalize('NFKC').trim().toLowerCase();
}

/** Why a (normalised) email address cannot name an account, or null when it can. */
export function emailProblem(email: string): string | null {
  if (email.length > MAX_EMAIL_LENGTH) return `at most ${MAX_EMAIL_LENGTH} characters`;
  if (INVISIBLE.test(email)) return 'control or invisible characters are not allowed';
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return 'expected name@domain';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length > MAX_LOCAL_LENGTH) return `the part before @ has at most ${MAX_LOCAL_LENGTH} characters`;
  if (!LOCAL.test(local)) return 'the part before @ has characters that are not allowed';
  if (domain === 'localhost') return null; // the bootstrap admin (admin@localhost) on a fresh install
  const labels = domain.split('.');
  if (labels.length < 2) return 'the domain needs a dot, e.g. example.com';
  if (!labels.every((l) => l.length <= MAX_LABEL_LENGTH && LABEL.test(l))) return 'the domain is not a valid host name';
  if (!TLD.test(labels[labels.length - 1])) return 'the domain is not a valid host name';
  return null;
}

export function isValidEmail(email: string): boolean {
  return emailProblem(email) === null;
}
