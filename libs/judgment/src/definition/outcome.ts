/** An Outcome: a member of the application's own enum (string or numeric). */
export type Outcome = string | number;

/** An Outcome enum object, e.g. `RefundOutcome`. */
export type OutcomeEnum = Readonly<Record<string, string | number>>;
