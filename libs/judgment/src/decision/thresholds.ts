import { InvalidDecision } from '../errors';
import { decisionMetadata } from './decision.decorator';

/** Named numeric thresholds a Decision declares as data, e.g. `readonly thresholds = { reject: 0.65, escalate: 0.3 }`. */
export type Thresholds = Readonly<Record<string, number>>;

/**
 * The thresholds a Decision instance declares (its `thresholds` property), checked: a plain object of finite numbers
 * with at least one name. `null` when the Decision declares none (Decisions without thresholds keep working).
 */
export function decisionThresholds(decision: object): Thresholds | null {
  const declared = (decision as { thresholds?: unknown }).thresholds;
  if (declared === undefined) return null;
  const name = decisionMetadata(decision.constructor).name;
  if (declared === null || typeof declared !== 'object' || Array.isArray(declared)) {
    throw new InvalidDecision(
      `${name}.thresholds must be an object of named numbers, e.g. { reject: 0.8, approve: 0.3 }; got ${describe(declared)}.`,
    );
  }
  const entries = Object.entries(declared);
  if (entries.length === 0) {
    throw new InvalidDecision(`${name}.thresholds is empty: name at least one threshold, or remove the property.`);
  }
  for (const [key, value] of entries) {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new InvalidDecision(`${name}.thresholds.${key} must be a finite number; got ${describe(value)}.`);
    }
  }
  return Object.freeze(Object.fromEntries(entries)) as Thresholds;
}

/**
 * A copy of a Decision instance deciding with other threshold values (a calibration candidate): same class, same
 * own properties, `thresholds` replaced. The values must name exactly the thresholds the Decision declares.
 */
export function withThresholds<D extends object>(decision: D, values: Thresholds): D {
  const declared = decisionThresholds(decision);
  const name = decisionMetadata(decision.constructor).name;
  if (declared === null) {
    throw new InvalidDecision(`${name} declares no thresholds: add a \`thresholds\` property read by decide().`);
  }
  const expected = Object.keys(declared).sort();
  const given = Object.keys(values).sort();
  if (expected.join('\0') !== given.join('\0')) {
    throw new InvalidDecision(
      `Thresholds for ${name} must name exactly ${expected.join(', ')}; got ${given.join(', ') || 'none'}.`,
    );
  }
  const copy = Object.assign(Object.create(Object.getPrototypeOf(decision)) as D, decision);
  Object.defineProperty(copy, 'thresholds', { value: Object.freeze({ ...values }), enumerable: true });
  decisionThresholds(copy);
  return copy;
}

function describe(value: unknown): string {
  if (typeof value === 'number' || value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value) : typeof value;
}
