// A password made for someone (admin reset, `tollgate user passwd` without --password): 16 letters and digits
// from 96 random bits, always with both kinds so it passes passwordWeakness.
import { randomBytes } from 'node:crypto';

export function generatePassword(): string {
  return `${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, 14)}a7`;
}
