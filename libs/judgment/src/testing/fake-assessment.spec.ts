import { Judgment, Rating } from 'nestjs-judgment';
import {
  DEFAULT_FAKE_CONFIDENCE,
  FakeAssessmentBuilder,
  fakeAssessment,
  InvalidProbability,
  UndeclaredLevel,
  UnscriptedQuestion,
  UndeclaredLabel,
  UndeclaredQuestion,
  WrongQuestionKind,
} from 'nestjs-judgment/testing';
import { Department, Harm, RefundAbuse, SupportTicket, aRefund, aTicket } from './fixtures.spec-helpers';

const refundAbuse = new RefundAbuse(aRefund());
const ticket = new SupportTicket(aTicket());

/** The builders with their compile-time typing switched off, to script what the types forbid. */
const untypedRefund = () => fakeAssessment(refundAbuse as Judgment);
const untypedTicket = () => fakeAssessment(ticket as Judgment);

const sum = (values: Iterable<number>) => [...values].reduce((total, p) => total + p, 0);

describe('fakeAssessment()', () => {
  it('every method returns the builder', () => {
    const builder = fakeAssessment(ticket);
    expect(builder.likelihood('urgent', 0.1)).toBe(builder);
    expect(builder.classification('language', 'italian')).toBe(builder);
    expect(builder.likelihoodSet('harms', {})).toBe(builder);
    expect(builder.answers({ urgent: 0.2 })).toBe(builder);
    expect(fakeAssessment(refundAbuse).rating('credibility', 1)).toBeInstanceOf(FakeAssessmentBuilder);
  });

  it('declaration errors surface when the builder is made', () => {
    @Judgment()
    class Broken implements Judgment {
      evidence() {
        return {};
      }
      questions() {
        return { severity: Rating.of('How severe?', ['Only one']) };
      }
    }
    expect(() => fakeAssessment(new Broken())).toThrow(/2 to 10 levels; 1 given/);
  });

  it('a scripted Likelihood is read back', () => {
    expect(fakeAssessment(refundAbuse).likelihood('abusive', 0.8).make().likelihood('abusive').probability).toBe(0.8);
  });

  it('an undeclared key fails with UndeclaredQuestion', () => {
    expect(() => untypedRefund().likelihood('abuse', 0.5)).toThrow(UndeclaredQuestion);
    expect(() => untypedRefund().likelihood('abuse', 0.5)).toThrow(/Declared Questions: "abusive", "credibility"/);
    expect(() => untypedRefund().rating('constructor', 1)).toThrow(UndeclaredQuestion);
  });

  it('a declared key of another kind fails with WrongQuestionKind', () => {
    expect(() => untypedRefund().likelihood('credibility', 0.5)).toThrow(WrongQuestionKind);
    expect(() => untypedRefund().likelihood('credibility', 0.5)).toThrow(/is a Rating, not a Likelihood/);
    expect(() => untypedTicket().classification('harms', 'spam')).toThrow(/is a Likelihood Set, not a Classification/);
    expect(() => untypedTicket().likelihoodSet('language', {})).toThrow(/is a Classification, not a Likelihood Set/);
    expect(() => untypedTicket().rating('urgent', 0)).toThrow(/is a Likelihood, not a Rating/);
  });

  it('an undeclared Classification label fails with UndeclaredLabel, as a winner or in a map', () => {
    expect(() => untypedTicket().classification('language', 'french')).toThrow(UndeclaredLabel);
    expect(() => untypedTicket().classification('language', { english: 0.5, french: 0.5 })).toThrow(
      /"language" declares no label "french"/,
    );
    expect(() => untypedTicket().classification('language', 'none')).toThrow(UndeclaredLabel);
  });

  it('an undeclared Likelihood Set label fails with UndeclaredLabel', () => {
    expect(() => untypedTicket().likelihoodSet('harms', { fraud: 0.5 })).toThrow(UndeclaredLabel);
    expect(() => untypedTicket().likelihoodSet('harms', { fraud: 0.5 })).toThrow(
      'The Likelihood Set "harms" declares no label "fraud". Declared labels: "spam", "abuse", "phishing".',
    );
  });

  it.each<[string, unknown]>([
    ['a level below 0', -1],
    ['a level past the last', 4],
    ['a fractional level', 1.5],
    ['a list too short', [0.5, 0.5]],
    ['a list too long', [0.2, 0.2, 0.2, 0.2, 0.2]],
  ])('an undeclared Rating level fails with UndeclaredLevel: %s', (_, answer) => {
    expect(() => fakeAssessment(refundAbuse).rating('credibility', answer as number)).toThrow(UndeclaredLevel);
    expect(() => fakeAssessment(refundAbuse).rating('credibility', answer as number)).toThrow(
      /"credibility" on refund-abuse has 4 levels, numbered 0 to 3/,
    );
  });

  it.each<[string, () => unknown, RegExp]>([
    ['a Likelihood above 1', () => fakeAssessment(refundAbuse).likelihood('abusive', 1.01), /probability of "abusive"/],
    ['a Likelihood below 0', () => fakeAssessment(refundAbuse).likelihood('abusive', -0.1), /probability of "abusive"/],
    ['a Likelihood of NaN', () => fakeAssessment(refundAbuse).likelihood('abusive', NaN), /probability of "abusive"/],
    [
      'a Classification map entry',
      () => fakeAssessment(ticket).classification('language', { english: 2 }),
      /probability of "language\.english"/,
    ],
    [
      'a Classification confidence',
      () => fakeAssessment(ticket).classification('language', 'english', { confidence: 1.5 }),
      /Confidence of "language"/,
    ],
    [
      'a Rating list entry',
      () => fakeAssessment(refundAbuse).rating('credibility', [0, 0, -0.5, 1]),
      /probability of level 2 of "credibility"/,
    ],
    [
      'a Rating confidence',
      () => fakeAssessment(refundAbuse).rating('credibility', 2, { confidence: -0.1 }),
      /Confidence of "credibility"/,
    ],
    [
      'a Likelihood Set entry',
      () => fakeAssessment(ticket).likelihoodSet('harms', { spam: 1.2 }),
      /probability of "harms\.spam"/,
    ],
  ])('a probability or confidence outside 0..1 fails with InvalidProbability: %s', (_, script, message) => {
    expect(script).toThrow(InvalidProbability);
    expect(script).toThrow(message);
  });

  it('0 and 1 are valid probabilities and confidences', () => {
    const assessment = fakeAssessment(ticket)
      .likelihood('urgent', 0)
      .classification('language', 'other', { confidence: 1 })
      .classification('department', Department.Sales, { confidence: 0 })
      .make();
    expect(assessment.likelihood('urgent').probability).toBe(0);
    expect(assessment.classification('language').probabilities).toEqual({ english: 0, italian: 0, other: 1 });
    expect(assessment.classification('department').confidence).toBe(0);
  });

  it('a winning label gets c more than the uniform rest: it beats the runner-up by exactly c, and the total is 1', () => {
    const answer = fakeAssessment(ticket)
      .classification('department', Department.Technical, { confidence: 0.6 })
      .make()
      .classification('department');
    // four options (three labels and none): each gets (1 - .6) / 4 = .1, the winner .1 + .6
    expect(answer.label).toBe(Department.Technical);
    expect(answer.probabilityOf(Department.Technical)).toBeCloseTo(0.7, 12);
    for (const label of [Department.Billing, Department.Sales, 'none'] as const) {
      expect(answer.probabilityOf(label)).toBeCloseTo(0.1, 12);
    }
    expect(answer.confidence).toBeCloseTo(0.6, 12);
    expect(sum(Object.values<number>(answer.probabilities))).toBeCloseTo(1, 12);
  });

  it('the default confidence is 0.9', () => {
    expect(DEFAULT_FAKE_CONFIDENCE).toBe(0.9);
    const answer = fakeAssessment(ticket).classification('language', 'english').make().classification('language');
    expect(answer.label).toBe('english');
    expect(answer.confidence).toBeCloseTo(0.9, 12);
    expect(answer.probabilityOf('english')).toBeCloseTo(0.9 + 0.1 / 3, 12);
  });

  it('the escape option none can win a scripted Classification', () => {
    const answer = fakeAssessment(ticket).classification('department', 'none').make().classification('department');
    expect(answer.label).toBeNull();
    expect(answer.probabilityOf('none')).toBeCloseTo(0.925, 12);
  });

  it('a winning Rating level gets the same winner-plus-uniform-rest distribution over the levels', () => {
    const answer = fakeAssessment(refundAbuse)
      .rating('credibility', 1, { confidence: 0.8 })
      .make()
      .rating('credibility');
    expect(answer.level).toBe(1);
    expect(answer.levelName).toBe('Doubtful');
    expect(answer.probabilities.map((p) => Number(p.toFixed(12)))).toEqual([0.05, 0.85, 0.05, 0.05]);
    expect(answer.confidence).toBeCloseTo(0.8, 12);
    expect(sum(answer.probabilities)).toBeCloseTo(1, 12);
  });

  it('a winning Rating level works when level descriptions repeat', () => {
    @Judgment()
    class Repeated implements Judgment {
      evidence() {
        return {};
      }
      questions() {
        return { size: Rating.of('How big?', ['Same', 'Same', 'Big']) };
      }
    }
    const answer = fakeAssessment(new Repeated()).rating('size', 0, { confidence: 0.7 }).make().rating('size');
    expect(answer.level).toBe(0);
    expect(answer.probabilities.map((p) => Number(p.toFixed(12)))).toEqual([0.8, 0.1, 0.1]);
  });

  it('a Rating list is taken as given, lowest level first', () => {
    const answer = fakeAssessment(refundAbuse).rating('credibility', [0, 0.5, 0.5, 0]).make().rating('credibility');
    expect(answer.probabilities).toEqual([0, 0.5, 0.5, 0]);
    expect(answer.expected).toBe(1.5);
  });

  it('in the map form, unlisted labels get 0 and the declared order is kept', () => {
    const assessment = fakeAssessment(ticket)
      .classification('department', { sales: 0.6, billing: 0.3 })
      .likelihoodSet('harms', { phishing: 0.8 })
      .make();
    expect(Object.entries(assessment.classification('department').probabilities)).toEqual([
      ['billing', 0.3],
      ['technical', 0],
      ['sales', 0.6],
      ['none', 0],
    ]);
    expect(assessment.likelihoodSet('harms').of(Harm.Spam).probability).toBe(0);
    expect(assessment.likelihoodSet('harms').labelsAbove(0.5)).toEqual(['phishing']);
  });

  it('answers({...}) scripts several at once, each as its kind takes it', () => {
    const assessment = fakeAssessment(ticket)
      .answers({
        urgent: 0.7,
        department: 'billing',
        language: { italian: 0.9, english: 0.1 },
        harms: { spam: 0.4 },
      })
      .make();
    expect(assessment.likelihood('urgent').probability).toBe(0.7);
    expect(assessment.classification('department').label).toBe('billing');
    expect(assessment.classification('department').confidence).toBeCloseTo(0.9, 12);
    expect(assessment.classification('language').probabilities).toEqual({ english: 0.1, italian: 0.9, other: 0 });
    expect(assessment.likelihoodSet('harms').of(Harm.Spam).probability).toBe(0.4);
    const refund = fakeAssessment(refundAbuse).answers({ credibility: 2 }).make().rating('credibility');
    expect(refund.level).toBe(2);
    const listed = fakeAssessment(refundAbuse)
      .answers({ credibility: [0.1, 0.2, 0.6, 0.1] })
      .make();
    expect(listed.rating('credibility').probabilities).toEqual([0.1, 0.2, 0.6, 0.1]);
  });

  it('answers({...}) with an undeclared key fails with UndeclaredQuestion', () => {
    expect(() => untypedRefund().answers({ abusive: 0.5, fraud: 0.5 })).toThrow(UndeclaredQuestion);
    expect(() => untypedRefund().answers({ abusive: 0.5, fraud: 0.5 })).toThrow(/no Question "fraud"/);
  });

  it('reading an unscripted question fails with UnscriptedQuestion', () => {
    const assessment = fakeAssessment(refundAbuse).likelihood('abusive', 0.5).make();
    expect(() => assessment.rating('credibility')).toThrow(UnscriptedQuestion);
    expect(() => assessment.rating('credibility')).toThrow(/"credibility" on refund-abuse/);
    expect(assessment.encodedAnswers()).toEqual({ abusive: 0.5 });
  });

  it('the Provenance is engine and model fake, no request id, no details', () => {
    const provenance = fakeAssessment(refundAbuse).make().provenance;
    expect(provenance).toMatchObject({ engine: 'fake', model: 'fake', requestId: null, details: {} });
  });
});
