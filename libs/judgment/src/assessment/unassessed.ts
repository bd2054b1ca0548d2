import type { Judgment } from '../definition/judgment.decorator';
import type { EngineFailed } from '../errors';

/**
 * A failed attempt: the Engine could not assess the Judgment. It has no answers and no way to an Outcome; the
 * attempt was recorded (best-effort) for audit.
 */
export class Unassessed<J extends Judgment = Judgment, R = unknown> {
  constructor(
    readonly judgment: J,
    readonly error: EngineFailed,
    /** The recorded attempt, or null when persistence is off or the write failed. */
    readonly record: R | null = null,
  ) {
    Object.freeze(this);
  }
}
