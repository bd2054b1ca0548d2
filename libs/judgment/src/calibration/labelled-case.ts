import type { Outcome } from '../definition/outcome';
import { type EvidenceMap, prepareEvidence } from '../definition/evidence';
import type { Judgment } from '../definition/judgment.decorator';
import { InvalidCalibration } from '../errors';
import { describeValue } from './describe-value';

/** What actually held for a case, per Likelihood (set labels as `set.label`): scores the probabilities themselves. */
export type CaseTruth = Readonly<Record<string, boolean>>;

/** Options of `LabelledCase.of()`. */
export interface LabelledCaseOptions {
  /** Whether each Likelihood was in fact true, e.g. `{ abusive: true }` (adds Brier score and reliability). */
  truth?: Record<string, boolean>;
}

/** The fields of a labelled case. */
interface LabelledCaseFields<J extends Judgment> {
  readonly judgment: J;
  readonly evidence: EvidenceMap;
  readonly expected: Outcome;
  readonly language: string | null;
  readonly truth: CaseTruth;
}

/**
 * A Judgment labelled with the Outcome a person says is right for it: what Calibration asks the Engine about and
 * compares the Decision's Outcome with. The Evidence is the Judgment's Evidence when the case is made.
 */
export class LabelledCase<J extends Judgment = Judgment> {
  readonly judgment: J;
  /** The Evidence the Engine is shown (UntrustedText at its paths). */
  readonly evidence: EvidenceMap;
  /** The right Outcome: a value of the Decision's Outcome enum. */
  readonly expected: Outcome;
  /** The Evidence's language (groups the results), or null. */
  readonly language: string | null;
  readonly truth: CaseTruth;

  private constructor(fields: LabelledCaseFields<J>) {
    this.judgment = fields.judgment;
    this.evidence = fields.evidence;
    this.expected = fields.expected;
    this.language = fields.language;
    this.truth = Object.freeze({ ...fields.truth });
    Object.freeze(this);
  }

  /** A case over the Judgment's current Evidence, labelled with the right Outcome (a value of the Outcome enum). */
  static of<J extends Judgment>(judgment: J, expected: Outcome, options: LabelledCaseOptions = {}): LabelledCase<J> {
    return LabelledCase.over(judgment, judgment.evidence(), expected, judgment.language?.() ?? null, options.truth);
  }

  /**
   * A case over given Evidence and language (a Resolution's stored Evidence). The Evidence is checked now, so Evidence
   * that cannot be encoded fails before any Engine is asked.
   */
  static over<J extends Judgment>(
    judgment: J,
    evidence: EvidenceMap,
    expected: Outcome,
    language: string | null,
    truth: Record<string, boolean> = {},
  ): LabelledCase<J> {
    if (typeof expected !== 'string' && typeof expected !== 'number') {
      throw new InvalidCalibration(
        `A labelled case of ${judgment.constructor.name} names no expected Outcome: pass a value of the Decision's ` +
          `Outcome enum (got ${describeValue(expected)}).`,
      );
    }
    if (truth === null || typeof truth !== 'object' || Array.isArray(truth)) {
      throw new InvalidCalibration(
        `The truth of a labelled case of ${judgment.constructor.name} must be a { likelihoodKey: true | false } map.`,
      );
    }
    prepareEvidence(evidence);
    return new LabelledCase({ judgment, evidence, expected, language, truth });
  }
}
