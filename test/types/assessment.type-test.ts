/*
 * Compile-time typing of Assessments, fakes and Decisions, as an app sees them. Not a Jest test: `npm run typecheck`
 * (`tsc -p tsconfig.json --noEmit`) checks it. It lives with the tests, outside the library's folders.
 * Each `// @ts-expect-error` line must be a type error (tsc fails if it compiles); every other line must compile.
 * Nothing here is meant to run.
 */
import { type Assessment, Classification, Decision, Judgment, Likelihood, Rating } from 'nestjs-judgment';
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

export const typed = [likelihood, rating, team, openTeam, maybeTeam, above, wideLabel];
