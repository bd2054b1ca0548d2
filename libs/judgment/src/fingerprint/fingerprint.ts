import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** SHA-256 (lowercase hex) of the RFC 8785 canonical JSON of a JSON value. */
export function fingerprint(value: unknown): string {
  const json = canonicalize(value);
  if (json === undefined) throw new TypeError('Only JSON values can be fingerprinted.');
  return createHash('sha256').update(json, 'utf8').digest('hex');
}
