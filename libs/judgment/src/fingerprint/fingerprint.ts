import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { InvalidEvidence } from '../errors';

/** The RFC 8785 canonical JSON of a JSON value. */
export function canonicalJson(value: unknown): string {
  const json = canonicalize(value);
  if (json === undefined) {
    throw new InvalidEvidence(null, 'is not a JSON value, so it cannot be fingerprinted; pass plain JSON data.');
  }
  return json;
}

/** SHA-256 (lowercase hex) of a text's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** SHA-256 (lowercase hex) of the RFC 8785 canonical JSON of a JSON value. */
export function fingerprint(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
