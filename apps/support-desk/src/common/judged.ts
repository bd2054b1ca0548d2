import type { Assessment, Outcome } from 'nestjs-judgment';

/** What the API shows of an Assessment and its Outcome: the answers as recorded, and who answered. */
export interface JudgedView {
  readonly outcome: Outcome;
  readonly answers: Record<string, unknown>;
  readonly provenance: { readonly engine: string; readonly model: string; readonly requestId: string | null };
}

export function judgedView(assessment: Assessment<any>, outcome: Outcome): JudgedView {
  const { engine, model, requestId } = assessment.provenance;
  return { outcome, answers: assessment.encodedAnswers(), provenance: { engine, model, requestId } };
}
