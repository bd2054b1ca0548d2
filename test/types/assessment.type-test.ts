/*
 * Compile-time typing of Assessments, fakes and Decisions, as an app sees them. Not a Jest test: `npm run typecheck`
 * (`tsc -p tsconfig.json --noEmit`) checks it. It lives with the tests, outside the library's folders.
 * Each `// @ts-expect-error` line must be a type error (tsc fails if it compiles); every other line must compile.
 * Nothing here is meant to run.
 */
import {
  type Assessment,
  AwaitingReview,
  Classification,
  type Decided,
  Decision,
  decidedOutcome,
  Judgment,
  Likelihood,
  Rating,
} from 'nestjs-judgment';
import {
  type ClassificationAnswer,
  type LikelihoodAnswer,
  type LikelihoodSetAnswer,
  type RatingAnswer,
} from '../../libs/judgment/src/assessment/answers';
import { fakeAssessment } from 'nestjs-judgment/testing';

enum Department {
  Billing = 'billing',
  Technical = 'technical',
}

enum Harm {
  Spam = 'spam',
  Abuse = 'abuse',
}

enum Outcome {
  Approve = 'approve',
  Reject = 'reject',
}

@Judgment()
class Typed implements Judgment {
  evidence() {
    return {};
  }
  questions() {
    return {
      abusive: Likelihood.that('Is it abuse?'),
      credibility: Rating.of('How credible?', ['Low', 'High']),
      department: Classification.of('Which team?', Object.values(Department)),
      open: Classification.of('Which team, if any?', Object.values(Department)).orNone(),
      language: Classification.of('Which language?', { english: 'English', italian: null }),
      harms: Likelihood.each({ [Harm.Spam]: 'Is it spam?', [Harm.Abuse]: 'Is it abusive?' }),
    };
  }
}

declare const assessment: Assessment<Typed>;
declare const wide: Assessment<Judgment>;

// ---- Keys and kinds --------------------------------------------------------------------------------------------

const likelihood: LikelihoodAnswer = assessment.likelihood('abusive');
const rating: RatingAnswer = assessment.rating('credibility');
assessment.classification('department');
assessment.likelihoodSet('harms');

// @ts-expect-error credibility is a Rating, not a Likelihood
assessment.likelihood('credibility');
// @ts-expect-error abusive is a Likelihood, not a Rating
assessment.rating('abusive');
// @ts-expect-error harms is a Likelihood Set, not a Classification
assessment.classification('harms');
// @ts-expect-error department is a Classification, not a Likelihood Set
assessment.likelihoodSet('department');
// @ts-expect-error undeclared key
assessment.likelihood('abuse');
// @ts-expect-error undeclared key
assessment.classification('team');

// ---- Labels ----------------------------------------------------------------------------------------------------

const department: ClassificationAnswer<Department, false> = assessment.classification('department');
department.is(Department.Billing);
department.probabilityOf(Department.Technical);
// @ts-expect-error a label not declared
department.is('sales');
// @ts-expect-error a label not declared
department.probabilityOf('sales');
// @ts-expect-error none is not an option without orNone()
department.is('none');

assessment.classification('language').probabilityOf('italian');
// @ts-expect-error a label not declared in the label → description map
assessment.classification('language').probabilityOf('french');

// Without orNone() the label is never null; with it, it may be.
const team: Department = assessment.classification('department').label;
// @ts-expect-error with orNone() the label is Department | null
const openTeam: Department = assessment.classification('open').label;
const maybeTeam: Department | null = assessment.classification('open').label;
assessment.classification('open').is('none');
assessment.classification('open').probabilityOf('none');

// ---- Likelihood Sets -------------------------------------------------------------------------------------------

const harms: LikelihoodSetAnswer<Harm> = assessment.likelihoodSet('harms');
harms.of(Harm.Spam);
const above: Harm[] = harms.labelsAbove(0.5);
// @ts-expect-error a label the set does not declare
harms.of('undeclared');

// ---- The wide Judgment type accepts any string key and label ---------------------------------------------------

wide.likelihood('anything');
wide.rating('anything');
wide.classification('anything').is('whatever');
wide.likelihoodSet('anything').of('whatever');
const wideLabel: string | null = wide.classification('anything').label;

// ---- Fake builder ----------------------------------------------------------------------------------------------

fakeAssessment(new Typed())
  .likelihood('abusive', 0.8)
  .rating('credibility', 1)
  .rating('credibility', [0.5, 0.5], { confidence: 0.9 })
  .classification('department', Department.Billing, { confidence: 0.7 })
  .classification('department', { billing: 0.6 })
  .classification('open', 'none')
  .likelihoodSet('harms', { spam: 0.9 })
  .answers({ abusive: 0.2 })
  .make();

// @ts-expect-error department is a Classification, not a Likelihood
fakeAssessment(new Typed()).likelihood('department', 0.8);
// @ts-expect-error a label not declared
fakeAssessment(new Typed()).classification('department', 'sales');
// @ts-expect-error none is not an option without orNone()
fakeAssessment(new Typed()).classification('department', 'none');
// @ts-expect-error a label not declared, in the map form
fakeAssessment(new Typed()).classification('department', { sales: 0.6 });
// @ts-expect-error a label the set does not declare
fakeAssessment(new Typed()).likelihoodSet('harms', { fraud: 0.9 });
// @ts-expect-error an undeclared key in answers()
fakeAssessment(new Typed()).answers({ fraud: 0.9 });

// ---- Decisions -------------------------------------------------------------------------------------------------

@Decision({ outcomes: Outcome })
export class TypedDecision implements Decision<Typed, Outcome> {
  decide(assessment: Assessment<Typed>): Outcome {
    return assessment.likelihood('abusive').above(0.5) ? Outcome.Reject : Outcome.Approve;
  }
}

@Decision({ outcomes: Outcome })
export class WrongOutcome implements Decision<Typed, Outcome> {
  // @ts-expect-error decide() must return the Outcome enum
  decide(): string {
    return 'approve';
  }
}

// ---- Deciding: a case in Review is never an automatic Outcome (issue 27.1) -----------------------------------------
// outcome() and decide() resolve to Decided<O> = O | AwaitingReview<O>. Code that acts on an Outcome, returns it or
// stores it as one does not compile until it has handled AwaitingReview: the compiler makes the caller handle Review.

declare function act(outcome: Outcome): void;

export async function unhandled(): Promise<Outcome> {
  const decided = await assessment.outcome<Outcome>();
  // @ts-expect-error a case awaiting Review is not an Outcome to act on
  act(decided);
  // @ts-expect-error nor one to store as an Outcome
  const stored: Outcome = decided;
  // @ts-expect-error the Outcome a Review case carries is not a string either
  const text: string = decided;
  void [stored, text];
  // @ts-expect-error nor to return as one
  return decided;
}

export async function unhandledDecide(): Promise<Outcome> {
  // @ts-expect-error decide() resolves alike: the Decision's Outcome or AwaitingReview
  return assessment.decide(new TypedDecision());
}

export async function exhaustive(): Promise<string> {
  const decided = await assessment.outcome<Outcome>();
  switch (decided) {
    case Outcome.Approve:
      return 'approved';
    case Outcome.Reject:
      return 'rejected';
    default: {
      // @ts-expect-error a switch over every Outcome leaves AwaitingReview: it is not exhaustive without it
      const none: never = decided;
      return none;
    }
  }
}

export async function comparedOnly(): Promise<Outcome> {
  const decided = await assessment.outcome<Outcome>();
  if (decided === Outcome.Reject) return decided; // comparing with an Outcome narrows to it
  // @ts-expect-error what is left may be Approve or a case awaiting Review
  return decided;
}

/** The README's service pattern: Review handled first, then the Outcome acts. */
export async function handled(): Promise<Outcome | 'pending'> {
  const decided: Decided<Outcome> = await assessment.outcome<Outcome>();
  if (decided instanceof AwaitingReview) {
    const why: 'band' | 'drift' | 'collapse' = decided.reason.cause;
    const given: Outcome = decided.outcome; // what the Decision gave, for logs and reports
    const record: number | null = decided.recordId;
    void [why, given, record, decided.is('drift')];
    // @ts-expect-error only the causes the package routes by
    decided.is('other');
    return 'pending';
  }
  act(decided);
  return decided;
}

// decidedOutcome() gives the Decision's Outcome either way, for reports and logs.
export const logged: Promise<Outcome> = assessment.outcome<Outcome>().then(decidedOutcome);

export const typed = [likelihood, rating, team, openTeam, maybeTeam, above, wideLabel];
