import { JudgmentError } from './judgment.error';

/** No assessment record has the id a Review call named (never written, or pruned). */
export class UnknownRecord extends JudgmentError {
  constructor(readonly recordId: number) {
    super(`Assessment record #${recordId} does not exist (never written, or pruned).`);
  }
}

/** A claim's options cannot be used (a lease that is not a positive duration within the bound). */
export class InvalidClaim extends JudgmentError {}

/**
 * Another reviewer holds a live claim on the record: claiming, renewing, releasing or resolving it is refused until
 * that lease is released or runs out. Names the holder and when the lease ends. Renewing one's own lease after it
 * ran out is refused the same way (claim the record again instead).
 */
export class ReviewClaimConflict extends JudgmentError {
  constructor(
    readonly recordId: number,
    /** The reviewer holding the claim. */
    readonly holder: { readonly type: string; readonly id: string },
    /** When the holder's lease ends (the record is free to claim from then on). */
    readonly expiresAt: Date,
    action: string,
    /** Said instead of the default (a renewal of one's own lease that ran out says to claim again). */
    message?: string,
  ) {
    super(
      message ??
        `Record #${recordId} is claimed by ${holder.type} #${holder.id} until ${expiresAt.toISOString()}, so it ` +
          `cannot be ${action} by another reviewer. Wait for the lease to be released or to run out, or pick another ` +
          'record.',
    );
  }
}
