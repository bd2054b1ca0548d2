// One test per rule of `judgment check`: a Judgment (or Decision) that trips it and one that does not.
import { Test } from '@nestjs/testing';
import { Classification, Decision, Evidence, Judgment, JudgmentModule, Likelihood, Rating } from 'nestjs-judgment';
import { type CheckFinding, JudgmentCheckFailed } from 'nestjs-judgment/testing';
import { JudgmentChecks } from './judgment-checks.service';

enum Verdict {
  Yes = 'yes',
  No = 'no',
}

@Decision({ outcomes: Verdict })
class FineDecision {
  readonly thresholds = { yes: 0.7 };
  decide(): Verdict {
    return Verdict.No;
  }
}

@Decision({ outcomes: Verdict })
class NaNThresholds {
  readonly thresholds = { yes: Number.NaN };
  decide(): Verdict {
    return Verdict.No;
  }
}

/** A Judgment class asking `questions` about `{ post: { body } }`, declared under `name`. */
function judgmentAsking(
  name: string,
  questions: () => object,
  options: { engine?: string; decision?: () => Function } = {},
) {
  @Judgment({ name, ...options } as never)
  class Asked implements Judgment {
    constructor(readonly body: string) {}
    evidence() {
      return { post: { body: Evidence.untrusted(this.body) }, meta: { length: this.body.length } };
    }
    questions() {
      return questions() as never;
    }
  }
  return Asked;
}

const CONNECTIONS = {
  engine: 'mock',
  engines: {
    mock: { driver: 'mock' },
    // A Laya connection: nothing is sent while checking (no Engine round), so the url needs no server.
    laya: { driver: 'jev', url: 'http://127.0.0.1:9', model: 'multilingual-1.0.0', requireKey: false, maxLabels: 3 },
  },
  persistence: { enabled: false },
  dataSource: false as const,
  log: false,
};

async function check(...classes: Function[]): Promise<CheckFinding[]> {
  const moduleRef = await Test.createTestingModule({
    imports: [JudgmentModule.forRoot(CONNECTIONS), JudgmentModule.forFeature(classes)],
  }).compile();
  try {
    return [...moduleRef.get(JudgmentChecks).run().findings];
  } finally {
    await moduleRef.close();
  }
}

const rules = (findings: CheckFinding[]) => findings.map((f) => `${f.severity} ${f.rule} ${f.key ?? '-'}`);

const clean = () => ({
  applies: Likelihood.that('Does the post describe a problem with an order?'),
  spam: Likelihood.that('Is the post unsolicited advertising?'),
  severity: Rating.of('How severe is the problem in `post.body`?', ['Minor', 'Major', 'Critical']),
});

describe('judgment check', () => {
  it('a clean Judgment with a clean default Decision has no findings', async () => {
    expect(await check(judgmentAsking('clean', clean, { decision: () => FineDecision }))).toEqual([]);
  });

  it('questions: a declaration limit is a failure naming the Judgment and the limit', async () => {
    const oneOption = judgmentAsking('one-option', () => ({ kind: Classification.of('Which kind?', ['only']) }));
    const findings = await check(oneOption, judgmentAsking('fine', clean));
    expect(rules(findings)).toEqual(['failure questions -']);
    expect(findings[0]).toMatchObject({ judgment: 'one-option', problem: expect.stringMatching(/at least 2 labels/) });
  });

  it('questions: a direct key equal to a Likelihood Set key is a failure', async () => {
    const twice = judgmentAsking('twice', () => ({
      flags: Likelihood.each({ spam: 'Is the post spam?' }),
      'flags.spam': Likelihood.that('Is the post advertising?'),
    }));
    expect(rules(await check(twice))).toEqual(['failure questions -']);
  });

  it('every Judgment is checked: findings of several Judgments are all collected', async () => {
    const a = judgmentAsking('a', () => ({ kind: Rating.of('How bad?', ['Only']) }));
    const b = judgmentAsking('b', () => ({ kind: Classification.of('Which?', ['x']) }));
    const findings = await check(a, b);
    expect(findings.map((f) => f.judgment)).toEqual(['a', 'b']);
  });

  it('connection: more options than the connection accepts is a failure naming the key and the limit', async () => {
    const four = () => ({ team: Classification.of('Which team should answer?', ['a', 'b', 'c', 'd']) });
    const findings = await check(judgmentAsking('on-laya', four, { engine: 'laya' }), judgmentAsking('on-mock', four));
    expect(rules(findings)).toEqual(['failure connection -']);
    expect(findings[0]).toMatchObject({ judgment: 'on-laya' });
    expect(findings[0].problem).toMatch(/at most 3 options, but "team" offers 4/);
  });

  it('connection: every tier of a cascade is checked, not only the first', async () => {
    const four = () => ({ team: Classification.of('Which team should answer?', ['a', 'b', 'c', 'd']) });
    const cascade = [{ connection: 'mock' }, { connection: 'laya' }];
    const findings = await check(judgmentAsking('cascaded', four, { decision: () => FineDecision, cascade } as never));
    expect(rules(findings)).toEqual(['failure connection -']);
    expect(findings[0]).toMatchObject({ judgment: 'cascaded' });
    expect(findings[0].problem).toMatch(/at most 3 options, but "team" offers 4/);
  });

  it('decision: thresholds that are not finite numbers are a failure naming the Decision', async () => {
    const findings = await check(NaNThresholds, FineDecision);
    expect(rules(findings)).toEqual(['failure decision -']);
    expect(findings[0]).toMatchObject({ decision: 'NaNThresholds', problem: expect.stringMatching(/thresholds\.yes/) });
  });

  it('record-columns: a Decision whose name, version or Outcomes the record cannot hold is a failure', async () => {
    // An enum's string members must be literals: the Outcome enum as the object an enum compiles to.
    const Wordy = { Short: 'short', Long: 'a-very-long-outcome-'.repeat(15) };
    @Decision({ outcomes: Wordy, version: 'v'.repeat(300) })
    class WordyDecision {
      decide(): string {
        return Wordy.Short;
      }
    }
    const findings = await check(WordyDecision, FineDecision);
    expect(rules(findings)).toEqual(['failure record-columns -', 'failure record-columns -']);
    expect(findings[0].problem).toMatch(/WordyDecision's version is 300 characters long; the record holds 255/);
    expect(findings[1].problem).toMatch(/WordyDecision's Outcome "a-very-long-outcome-.*" is 300 characters long/);
  });

  it('default-decision: a default Decision that is not a @Decision() class is a failure', async () => {
    class NotADecision {}
    const broken = judgmentAsking('broken-default', clean, { decision: () => NotADecision });
    const findings = await check(broken, judgmentAsking('good-default', clean, { decision: () => FineDecision }));
    expect(rules(findings)).toEqual(['failure default-decision -']);
    expect(findings[0].problem).toMatch(/NotADecision, which is not declared with @Decision/);
  });

  it('negative-likelihood: a Likelihood phrased in the negative warns; the positive one and "or not" do not', async () => {
    const findings = await check(
      judgmentAsking('negative', () => ({
        applies: Likelihood.that('Does the post describe a problem?'),
        legit: Likelihood.that('Is the post not spam?'),
        nicht: Likelihood.that('Ist der Beitrag keine Werbung?'),
        either: Likelihood.that('Is the post spam or not?'),
        set: Likelihood.each({ honest: "Isn't the customer honest?", rude: 'Is the customer rude?' }),
      })),
    );
    expect(rules(findings)).toEqual([
      'warning negative-likelihood legit',
      'warning negative-likelihood nicht',
      'warning negative-likelihood set.honest',
    ]);
  });

  it('computation: a question that asks to count or compute warns', async () => {
    const findings = await check(
      judgmentAsking('counting', () => ({
        applies: Likelihood.that('Does the customer describe a problem with the items they return?'),
        many: Likelihood.that('Does the post mention more than three products? Count the products.'),
        size: Rating.of('How many items does the customer return?', ['One', 'A few', 'Many']),
        tone: Rating.of('How angry is the customer?', ['Calm', 'Annoyed', 'Furious']),
      })),
    );
    expect(rules(findings)).toEqual(['warning computation many', 'warning computation size']);
  });

  it('likelihood-set: direct Likelihoods asking the same question of different labels warn', async () => {
    const findings = await check(
      judgmentAsking('labels', () => ({
        spam: Likelihood.that('Does the post contain spam?'),
        hate: Likelihood.that('Does the post contain hate speech?'),
        applies: Likelihood.that('Is the post about an order?'),
      })),
    );
    expect(rules(findings)).toEqual(['warning likelihood-set spam']);
    expect(findings[0].problem).toMatch(/"spam", "hate"/);
  });

  it('unguarded-rating: a Rating with no Likelihood beside it warns', async () => {
    const findings = await check(
      judgmentAsking('unguarded', () => ({
        team: Classification.of('Which team should answer?', ['billing', 'technical']),
        severity: Rating.of('How severe is the problem?', ['Minor', 'Major']),
      })),
      judgmentAsking('guarded', clean),
    );
    expect(rules(findings)).toEqual(['warning unguarded-rating severity']);
    expect(findings[0].judgment).toBe('unguarded');
  });

  it('unguarded-rating: a Likelihood about something else does not guard a Rating (issue 31)', async () => {
    const findings = await check(
      judgmentAsking('spam-beside', () => ({
        spam: Likelihood.that('Is the post unsolicited advertising?'),
        severity: Rating.of('How severe is the problem described?', ['Minor', 'Major']),
      })),
      judgmentAsking('one-of-two', () => ({
        problem: Likelihood.that('Does the customer describe problems with a delivery?'),
        severity: Rating.of('How severe is the problem the customer describes?', ['Minor', 'Major']),
        tone: Rating.of('How polite is the wording?', ['Rude', 'Neutral', 'Polite']),
      })),
    );
    expect(rules(findings)).toEqual(['warning unguarded-rating severity', 'warning unguarded-rating tone']);
    expect(findings.map((finding) => finding.judgment)).toEqual(['spam-beside', 'one-of-two']);
    expect(findings[1].problem).toMatch(/^No Likelihood beside the Rating names what it rates \("wording"\)/);
  });

  it('evidence-path: a backticked path the Evidence cannot have warns; present and run-time paths do not', async () => {
    const findings = await check(
      judgmentAsking('paths', () => ({
        applies: Likelihood.that('Does `post.body` describe a problem?'),
        missing: Likelihood.that('Is `request.explanation` credible?'),
        deeper: Likelihood.that('Is `post.body.title` a question?'),
        runtime: Likelihood.that('Is `meta.length.value` large?'),
      })),
    );
    expect(rules(findings)).toEqual(['warning evidence-path missing', 'warning evidence-path deeper']);
  });

  it('unreadable-questions: questions() that need the Subject warn that they were not checked', async () => {
    @Judgment({ name: 'needs-subject' })
    class NeedsSubject implements Judgment {
      constructor(readonly post: { topic: string }) {}
      evidence() {
        return { topic: this.post.topic };
      }
      questions() {
        return { about: Likelihood.that(`Is the post about ${this.post.topic.toLowerCase()}?`) };
      }
    }
    expect(rules(await check(NeedsSubject))).toEqual(['warning unreadable-questions -']);
  });

  it('startup refuses the failures with JudgmentCheckFailed carrying the report', async () => {
    const oneOption = judgmentAsking('one-option', () => ({ kind: Classification.of('Which kind?', ['only']) }));
    const moduleRef = await Test.createTestingModule({
      imports: [JudgmentModule.forRoot(CONNECTIONS), JudgmentModule.forFeature([oneOption])],
    }).compile();
    const started = moduleRef.init();
    await expect(started).rejects.toThrow(JudgmentCheckFailed);
    await expect(started).rejects.toThrow(/one-option \[questions\]: A Classification needs at least 2 labels/);
    await moduleRef.close().catch(() => undefined);
  });

  it('startup logs the warnings once and starts', async () => {
    const warn = jest.spyOn(require('@nestjs/common').Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const negative = judgmentAsking('negative', () => ({ legit: Likelihood.that('Is the post not spam?') }));
      const moduleRef = await Test.createTestingModule({
        imports: [JudgmentModule.forRoot(CONNECTIONS), JudgmentModule.forFeature([negative])],
      }).compile();
      await moduleRef.init();
      await moduleRef.close();
      const lines = warn.mock.calls.filter(([line]) => /judgment check/.test(JSON.stringify(line)));
      expect(lines).toHaveLength(1);
      // One line (Nest's default text logger): the message, then the findings as a JSON list.
      const [line] = lines[0] as [string];
      expect(line).toMatch(/^judgment check: 1 Question may mislead; run `judgment check` for the fixes\. warnings=\[/);
      expect(JSON.parse(line.slice(line.indexOf('warnings=') + 'warnings='.length))).toEqual([
        expect.stringMatching(/^negative "legit" \[negative-likelihood\]/),
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
