import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { InvalidEvidence } from '../errors';

/** SHA-256 (lowercase hex) of the RFC 8785 canonical JSON of a JSON value. */
export function fingerprint(value: unknown): string {
  const json = canonicalize(value);
  if (json === undefined) {
    throw new InvalidEvidence(null, 'is not a JSON value, so it cannot be fingerprinted; pass plain JSON data.');
  }
  return createHash('sha256').update(json, 'utf8').digest('hex');
}
