import { JudgmentError } from '../errors';

/**
 * The command line was used wrongly (which app to load, a file or export that is not there): exit status 2, like
 * the command parser's own usage errors, so scripts can tell it from a command that ran and failed (exit 1).
 */
export class CliUsageError extends JudgmentError {}
