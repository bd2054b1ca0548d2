import { JudgmentError } from './judgment.error';

/**
 * The module's configuration cannot be used: an environment variable's value, a missing DataSource or entity, a
 * class given to forFeature() that is neither a Judgment nor a Decision, or a resolutionPolicy that is not a policy.
 */
export class InvalidConfiguration extends JudgmentError {}
