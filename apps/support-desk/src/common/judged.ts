import { type Assessment, type Decided, type ReviewReason, decidedOutcome, reviewReasonOf } from 'nestjs-judgment';

/**
 * What the API shows of an Assessment and its decision: the Outcome the Decision gave, whether the case went to
 * Review instead of acting (and why), the answers as recorded, and who answered.
 */
export interface JudgedView {
  readonly outcome: string | number;
  readonly review: ReviewReason | null;
  readonly answers: Record<string, unknown>;
  readonly provenance: { readonly engine: string; readonly model: string; readonly requestId: string | null };
}

export function judgedView(assessment: Assessment<any>, decided: Decided): JudgedView {
  const { engine, model, requestId } = assessment.provenance;
  return {
    outcome: decidedOutcome(decided),
    review: reviewReasonOf(decided),
    answers: assessment.encodedAnswers(),
    provenance: { engine, model, requestId },
  };
}
