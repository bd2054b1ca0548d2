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
