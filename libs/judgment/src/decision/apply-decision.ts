import type { Type } from '@nestjs/common';
import type { Assessment, Decider, DecisionRecording } from '../assessment/assessment';
import type { Judgment } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import { AwaitingReview, type Decided } from '../assessment/awaiting-review';
import { traceReadings, untraced } from '../assessment/reading-trace';
import { planDecision } from './decision-plan';
import { ImpureDecision, InvalidDecision } from '../errors';
import { decisionMetadata } from './decision.decorator';
import { type DecisionTrace, decisionTrace } from './decision-trace';

/**
 * Applies a Decision to an Assessment and returns its Outcome, refusing (InvalidDecision) what is not an instance of
 * a @Decision() class, a Promise and an Outcome outside the declared ones. With `checksPurity` (scripted answers) the
 * Decision runs twice and must give the same Outcome (ImpureDecision otherwise).
 */
export function applyDecision<J extends Judgment, O extends Outcome>(
  assessment: Assessment<J>,
  decision: Decider<J, O>,
  checksPurity: boolean,
): O {
  const outcome = applyOnce(assessment, decision);
  if (checksPurity) {
    const again = applyOnce(assessment, decision);
    if (again !== outcome) throw new ImpureDecision(decisionMetadata(decision.constructor).name, outcome, again);
  }
  return outcome;
}

/**
 * applyDecision, also returning the decision trace of the run (what the Decision read and compared through the
 * Assessment's answers). A Decision that throws records no trace: its error reaches the caller as with applyDecision.
 */
export function applyTracedDecision<J extends Judgment, O extends Outcome>(
  assessment: Assessment<J>,
  decision: Decider<J, O>,
  checksPurity: boolean,
): { outcome: O; trace: DecisionTrace } {
  const { result: outcome, readings } = traceReadings(() => applyOnce(assessment, decision));
  if (checksPurity) {
    const again = untraced(() => applyOnce(assessment, decision));
    if (again !== outcome) throw new ImpureDecision(decisionMetadata(decision.constructor).name, outcome, again);
  }
  return { outcome, trace: decisionTrace(decision, decisionMetadata(decision.constructor).name, outcome, readings) };
}

/**
 * Deciding that only computes the Outcome, checking purity or not: no record, log line or event. A Review Outcome
 * still resolves as AwaitingReview (`band`); no guard is asked (there is no lock to compare with).
 */
export function computeOnly(checksPurity: boolean): DecisionRecording {
  return Object.freeze({
    decisionOf: (cls: Type<unknown>) => constructDecision(cls as Type<Decider>),
    decide: async <J extends Judgment, O extends Outcome>(
      assessment: Assessment<J>,
      decision: Decider<J, O>,
    ): Promise<Decided<O>> => {
      const { outcome, trace } = applyTracedDecision(assessment, decision, checksPurity);
      const plan = planDecision({
        outcome,
        decision: decisionMetadata(decision.constructor),
        rule: trace.rule.text,
        findings: [],
        inReview: null,
        audit: null,
      });
      return plan.route === 'review' ? new AwaitingReview(outcome, plan.reason, null) : outcome;
    },
  });
}

/**
 * An instance of a Decision class that no module provides (a Decision is pure and needs no dependencies): a
 * constructor that throws is reported with the class named.
 */
export function constructDecision<D extends Decider>(cls: Type<D>): D {
  try {
    return new cls();
  } catch (error) {
    throw new InvalidDecision(
      `The Decision ${cls.name} could not be constructed: ${(error as Error)?.message ?? String(error)}. A Decision ` +
        'needs no constructor arguments; register it with JudgmentModule.forFeature([...]) if it injects services.',
      { cause: error },
    );
  }
}

/** Deciding only computes the Outcome: a Replay, a hand-built Assessment. */
export const COMPUTE_ONLY: DecisionRecording = computeOnly(false);

function applyOnce<J extends Judgment, O extends Outcome>(assessment: Assessment<J>, decision: Decider<J, O>): O {
  if (decision === null || typeof decision !== 'object' || typeof decision.decide !== 'function') {
    throw new InvalidDecision(
      `${describeDecision(decision)} is not a Decision: pass an instance of a @Decision() class with a ` +
        'decide(assessment, judgment) method.',
    );
  }
  const metadata = decisionMetadata(decision.constructor);
  const outcome = decision.decide(assessment, assessment.judgment);
  if (outcome !== null && typeof (outcome as { then?: unknown })?.then === 'function') {
    throw new InvalidDecision(
      `${metadata.name}.decide() returned a Promise. A Decision is pure and synchronous: compute the Outcome from the ` +
        'Assessment and the Judgment only.',
    );
  }
  if (!metadata.outcomes.includes(outcome)) {
    throw new InvalidDecision(
      `${metadata.name}.decide() returned ${JSON.stringify(outcome)}, which is not one of its outcomes ` +
        `(${metadata.outcomes.map((o) => JSON.stringify(o)).join(', ')}).`,
    );
  }
  return outcome;
}

function describeDecision(decision: unknown): string {
  if (decision === null || decision === undefined) return String(decision);
  if (typeof decision === 'function') return `The class ${decision.name} (not an instance)`;
  return (decision as object).constructor?.name ?? typeof decision;
}
