// The app `judgment check` is run against as a real process: one Judgment or Decision per finding of the check, no
// database, no network (the Laya connection points at a loopback port nothing listens on; checking never asks it).
import { Module } from '@nestjs/common';
import { Classification, Decision, Evidence, Judgment, JudgmentModule, Likelihood, Rating } from 'nestjs-judgment';

enum Verdict {
  Yes = 'yes',
  No = 'no',
}

/** A report the Judgments below are about. */
export interface Report {
  readonly text: string;
}

abstract class AboutReport {
  constructor(readonly report: Report) {}
  evidence() {
    return { report: { text: Evidence.untrusted(this.report.text) } };
  }
}

/** Failure `questions`: a Classification with one option. */
@Judgment({ name: 'one-option' })
export class OneOption extends AboutReport implements Judgment {
  questions() {
    return { kind: Classification.of('Which kind of report is it?', ['bug']) };
  }
}

/** Failure `connection`: four options on a connection that reads at most three. */
@Judgment({ name: 'too-many-for-laya', engine: 'laya' })
export class TooManyForLaya extends AboutReport implements Judgment {
  questions() {
    return {
      applies: Likelihood.that('Does the report describe a problem?'),
      team: Classification.of('Which team should handle it?', ['billing', 'technical', 'account', 'sales']),
    };
  }
}

class NotADecision {}

/** Failure `default-decision`: the default Decision is not a @Decision() class. */
@Judgment({ name: 'wrong-default', decision: () => NotADecision })
export class WrongDefault extends AboutReport implements Judgment {
  questions() {
    return { urgent: Likelihood.that('Does the report ask for urgent help?') };
  }
}

/** Failure `decision`: a threshold that is not a finite number. */
@Decision({ outcomes: Verdict, name: 'broken-thresholds' })
export class BrokenThresholds {
  readonly thresholds = { yes: Number.NaN };
  decide(): Verdict {
    return Verdict.No;
  }
}

/** Warnings `negative-likelihood`, `computation`, `likelihood-set` and `evidence-path`. */
@Judgment({ name: 'misleading' })
export class Misleading extends AboutReport implements Judgment {
  questions() {
    return {
      legit: Likelihood.that('Is the report not spam?'),
      total: Likelihood.that('Is the sum of the amounts in the report above 100 euros?'),
      spam: Likelihood.that('Does the report contain spam links?'),
      ads: Likelihood.that('Does the report contain advertising?'),
      tone: Likelihood.that('Is `request.explanation` rude?'),
    };
  }
}

/** Warning `unguarded-rating`. */
@Judgment({ name: 'unguarded' })
export class Unguarded extends AboutReport implements Judgment {
  questions() {
    return { severity: Rating.of('How severe is the problem?', ['Minor', 'Major', 'Critical']) };
  }
}

/** Warning `unreadable-questions`: its questions() read the Subject. */
@Judgment({ name: 'needs-subject' })
export class NeedsSubject extends AboutReport implements Judgment {
  questions() {
    return { about: Likelihood.that(`Is the report about ${this.report.text.slice(0, 10)}?`) };
  }
}

@Module({
  imports: [
    JudgmentModule.forRoot({
      engine: 'mock',
      engines: {
        mock: { driver: 'mock' },
        laya: { driver: 'jev', url: 'http://127.0.0.1:9', model: 'multilingual-1.0.0', maxLabels: 3 },
      },
      persistence: { enabled: false },
      dataSource: false,
    }),
    JudgmentModule.forFeature([OneOption, TooManyForLaya, WrongDefault, BrokenThresholds, Misleading, Unguarded]),
    JudgmentModule.forFeature([NeedsSubject]),
  ],
})
export class CheckFixtureModule {}

/** The same Judgments without the failures: it starts, and `check` exits 0 with the warnings. */
@Module({
  imports: [
    JudgmentModule.forRoot({
      engine: 'mock',
      engines: { mock: { driver: 'mock' } },
      persistence: { enabled: false },
      dataSource: false,
    }),
    JudgmentModule.forFeature([Misleading, Unguarded, NeedsSubject]),
  ],
})
export class WarningsFixtureModule {}
