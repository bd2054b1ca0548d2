import type { Type } from '@nestjs/common';
import type { Decision, Outcome } from '../definition/decision.decorator';
import type { Assessment } from './assessment';

/**
 * What connects an Assessment to the Judge that produced it, so deciding it is recorded. An Assessment without a link
 * (a Replay, `Assessment.fake()`, a hand-built one) only computes its Outcome.
 */
export interface AssessmentLink {
  /** Records the decision, logs it and fires its events. */
  decided(assessment: Assessment<any>, decision: Decision, outcome: Outcome): Promise<void>;
  /** Refuses, before it runs, a Decision that may not decide this Assessment (e.g. another Judgment's). */
  admit?(assessment: Assessment<any>, decision: unknown): void;
  /** Resolves a Decision class (through DI, so apps and tests can override it). */
  resolveDecision?(cls: Type<Decision>): Decision;
}

const links = new WeakMap<Assessment<any>, AssessmentLink>();
const fakeMade = new WeakSet<Assessment<any>>();

/** Links an Assessment to the recorder that decides it. */
export function linkAssessment(assessment: Assessment<any>, link: AssessmentLink): void {
  links.set(assessment, link);
}

export function linkOf(assessment: Assessment<any>): AssessmentLink | undefined {
  return links.get(assessment);
}

/** Marks an Assessment as made by a fake, which turns on the purity check when it is decided. */
export function markFakeMade(assessment: Assessment<any>): void {
  fakeMade.add(assessment);
}

export function isFakeMade(assessment: Assessment<any>): boolean {
  return fakeMade.has(assessment);
}
