import { Assessment } from 'nestjs-judgment';
import { Provenance } from 'nestjs-judgment/drivers';
import { UnscriptedQuestion, UndeclaredLabel, UndeclaredQuestion, WrongQuestionKind } from 'nestjs-judgment/testing';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import { RefundAbuse, SupportTicket, aRefund, aTicket, jevProvenance } from '../testing/fixtures.spec-helpers';

const refundAbuse = new RefundAbuse(aRefund());
const ticket = new SupportTicket(aTicket());

const refundAssessment = () =>
  Assessment.fromAnswers(
    refundAbuse,
    refundAbuse.questions(),
    { abusive: 0.42, credibility: [0.1, 0.2, 0.6, 0.1] },
    jevProvenance(),
    COMPUTE_ONLY,
  );

const ticketAssessment = () =>
  Assessment.fromAnswers(
    ticket,
    ticket.questions(),
    {
      department: { billing: 0.7, technical: 0.2, sales: 0.05, none: 0.05 },
      language: { english: 0.15, italian: 0.8, other: 0.05 },
      harms: { spam: 0.1, abuse: 0.02, phishing: 0.6 },
      urgent: 0.3,
    },
    new Provenance('laya', 'laya-0.4.1'),
    COMPUTE_ONLY,
  );

describe('Assessment', () => {
  it('is frozen, and so are its questions', () => {
    const assessment = refundAssessment();
    expect(Object.isFrozen(assessment)).toBe(true);
    expect(Object.isFrozen(assessment.questions)).toBe(true);
    expect(Object.isFrozen(assessment.provenance)).toBe(true);
  });

  it('mutation attempts fail in strict mode', () => {
    // Compiled modules are strict, so assigning to a frozen object throws instead of being ignored.
    const assessment = refundAssessment() as unknown as Record<string, unknown>;
    expect(() => {
      assessment.provenance = new Provenance('other', 'other');
    }).toThrow(TypeError);
    expect(() => {
      (assessment.questions as Record<string, unknown>).extra = null;
    }).toThrow(TypeError);
    expect(() => {
      assessment.likelihood = () => 1;
    }).toThrow(TypeError);
    expect(() => {
      (refundAssessment().likelihood('abusive') as unknown as Record<string, unknown>).probability = 1;
    }).toThrow(TypeError);
  });

  it('keeps the Judgment it assesses and its Provenance', () => {
    const assessment = refundAssessment();
    expect(assessment.judgment).toBe(refundAbuse);
    expect(assessment.provenance).toEqual(jevProvenance());
  });

  it('Provenance carries the engine, the model, the request id and the details; request id defaults to null', () => {
    const provenance = new Provenance('jev', 'jev-1.13.0', 'req_1', { usage: { input_tokens: 3 } });
    expect(provenance).toMatchObject({
      engine: 'jev',
      model: 'jev-1.13.0',
      requestId: 'req_1',
      details: { usage: { input_tokens: 3 } },
    });
    expect(new Provenance('fake', 'fake')).toMatchObject({ requestId: null, details: {} });
    expect(Object.isFrozen(provenance.details)).toBe(true);
  });

  it('logContext() is { judgment, engine, model, request_id }', () => {
    expect(refundAssessment().logContext()).toEqual({
      judgment: 'refund-abuse',
      engine: 'jev',
      model: 'jev-1.13.0',
      request_id: 'req_123',
    });
    expect(ticketAssessment().logContext()).toEqual({
      judgment: 'SupportTicket',
      engine: 'laya',
      model: 'laya-0.4.1',
      request_id: null,
    });
  });

  it('reading an undeclared key fails with UndeclaredQuestion listing the declared keys', () => {
    const assessment = refundAssessment() as Assessment;
    expect(() => assessment.likelihood('abuse')).toThrow(UndeclaredQuestion);
    expect(() => assessment.likelihood('abuse')).toThrow(
      'refund-abuse declares no Question "abuse". Declared Questions: "abusive", "credibility".',
    );
    expect(() => assessment.rating('toString')).toThrow(UndeclaredQuestion);
  });

  it('reading a key as another kind fails with WrongQuestionKind naming both kinds', () => {
    const refund = refundAssessment() as Assessment;
    const support = ticketAssessment() as Assessment;
    expect(() => refund.likelihood('credibility')).toThrow(WrongQuestionKind);
    expect(() => refund.likelihood('credibility')).toThrow(
      /Question "credibility" on refund-abuse is a Rating, not a Likelihood/,
    );
    expect(() => support.classification('harms')).toThrow(/is a Likelihood Set, not a Classification/);
    expect(() => support.likelihoodSet('urgent')).toThrow(/is a Likelihood, not a Likelihood Set/);
    expect(() => support.rating('language')).toThrow(/is a Classification, not a Rating/);
  });

  it('Classification is() and probabilityOf() on an undeclared label fail with UndeclaredLabel listing the labels', () => {
    const language = ticketAssessment().classification('language') as unknown as {
      is(label: string): boolean;
      probabilityOf(label: string): number;
    };
    const message =
      'The Classification "language" declares no label "french". Declared labels: "english", "italian", "other".';
    expect(() => language.is('french')).toThrow(UndeclaredLabel);
    expect(() => language.is('french')).toThrow(message);
    expect(() => language.probabilityOf('french')).toThrow(message);
    expect(() => language.is('none')).toThrow(UndeclaredLabel);
  });

  it('Likelihood Set of() on an undeclared label fails with UndeclaredLabel listing the labels', () => {
    const harms = ticketAssessment().likelihoodSet('harms') as unknown as { of(label: string): unknown };
    expect(() => harms.of('fraud')).toThrow(UndeclaredLabel);
    expect(() => harms.of('fraud')).toThrow(
      'The Likelihood Set "harms" declares no label "fraud". Declared labels: "spam", "abuse", "phishing".',
    );
  });

  it('a declared Question without an answer fails with UnscriptedQuestion when read', () => {
    const partial = Assessment.fromAnswers(
      refundAbuse,
      refundAbuse.questions(),
      { abusive: 0.4 },
      jevProvenance(),
      COMPUTE_ONLY,
    );
    expect(partial.isAnswered('credibility')).toBe(false);
    expect(() => partial.rating('credibility')).toThrow(UnscriptedQuestion);
    expect(() => partial.rating('credibility')).toThrow(/"credibility" on refund-abuse/);
  });

  it('fromAnswers() and encodedAnswers() round-trip the record encoding', () => {
    const encoded = ticketAssessment().encodedAnswers();
    expect(encoded).toEqual({
      department: { billing: 0.7, technical: 0.2, sales: 0.05, none: 0.05 },
      language: { english: 0.15, italian: 0.8, other: 0.05 },
      harms: { spam: 0.1, abuse: 0.02, phishing: 0.6 },
      urgent: 0.3,
    });
    const rebuilt = Assessment.fromAnswers(
      ticket,
      ticket.questions(),
      encoded,
      new Provenance('laya', 'laya-0.4.1'),
      COMPUTE_ONLY,
    );
    expect(rebuilt.encodedAnswers()).toEqual(encoded);
  });

  it('fromAnswers() refuses a stored answer that does not fit its Question', () => {
    const build = (encoded: Record<string, unknown>) => () =>
      Assessment.fromAnswers(refundAbuse, refundAbuse.questions(), encoded as never, jevProvenance(), COMPUTE_ONLY);
    expect(build({ abusive: '0.4' })).toThrow(/"abusive" on refund-abuse is not a probability/);
    expect(build({ credibility: [0.5, 0.5] })).toThrow(/not a list of 4 probabilities/);
    const missing = () =>
      Assessment.fromAnswers(
        ticket,
        ticket.questions(),
        { language: { english: 1, italian: 0 } },
        jevProvenance(),
        COMPUTE_ONLY,
      );
    expect(missing).toThrow(/missing "other"/);
  });

  it('fromAnswers() refuses probabilities outside 0..1 or that are not numbers, from any Engine or record', () => {
    const build = (encoded: Record<string, unknown>) => () =>
      Assessment.fromAnswers(refundAbuse, refundAbuse.questions(), encoded as never, jevProvenance(), COMPUTE_ONLY);
    expect(build({ abusive: 1.7 })).toThrow(/"abusive" on refund-abuse is not a probability from 0 to 1/);
    expect(build({ abusive: Number.NaN })).toThrow(/not a probability from 0 to 1/);
    expect(build({ credibility: [0.5, 0.5, -0.1, 0.1] })).toThrow(/4 probabilities from 0 to 1/);
    expect(build({ credibility: ['0.5', 0.5, 0, 0] })).toThrow(/4 probabilities from 0 to 1/);
    const outOfRange = () =>
      Assessment.fromAnswers(
        ticket,
        ticket.questions(),
        { language: { english: 2, italian: 0, other: 0 } },
        jevProvenance(),
        COMPUTE_ONLY,
      );
    expect(outOfRange).toThrow(/not for "english"/);
  });
});
