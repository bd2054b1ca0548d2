import { JudgmentError } from './judgment.error';

/**
 * The module's configuration cannot be used: an environment variable's value, a missing DataSource or entity, a
 * class given to forFeature() that is neither a Judgment nor a Decision, or a resolutionPolicy that is not a policy.
 */
export class InvalidConfiguration extends JudgmentError {}

/**
 * A connection's `limits` cannot be used: a limit that is not a positive whole number, an environment value without
 * its time unit, a window too short for the limit, or limits the running setup cannot share.
 */
export class InvalidRateLimit extends InvalidConfiguration {}

/**
 * A connection's `price` cannot be used: not an object, an unknown field, a figure that is negative, not a finite
 * number or not a number at all, a currency that is not a short code, or a price with no figure.
 */
export class InvalidPrice extends InvalidConfiguration {}
