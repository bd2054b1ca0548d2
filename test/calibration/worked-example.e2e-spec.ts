// The reference's worked example, reproduced exactly: four returns, one Decision, bands by tenths.
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { type Assessment, Classification, Decision, Judgment, Likelihood, JudgmentModule } from 'nestjs-judgment';
import { type Engine, type EngineRequest, type EngineResponse, Provenance } from 'nestjs-judgment/drivers';
import { Calibration, LabelledCase } from 'nestjs-judgment/calibration';

enum ReturnOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

interface Return {
  reference: string;
  reason: string;
}

@Judgment({ name: 'return-abuse', decision: () => ReturnDecision })
class ReturnAbuse implements Judgment {
  constructor(readonly ret: Return) {}

  evidence() {
    return { return: { reference: this.ret.reference, reason: this.ret.reason } };
  }

  questions() {
    return {
      abusive: Likelihood.that('Is this return an attempt to abuse the return policy?'),
      department: Classification.of('Which department should handle it?', ['billing', 'shipping', 'other']),
    };
  }
}

@Decision({ outcomes: ReturnOutcome, review: [ReturnOutcome.Escalate], version: '1' })
class ReturnDecision implements Decision<ReturnAbuse, ReturnOutcome> {
  decide(assessment: Assessment<ReturnAbuse>): ReturnOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return ReturnOutcome.Reject;
    if (abusive.above(0.3)) return ReturnOutcome.Escalate;
    return ReturnOutcome.Approve;
  }
}

/** The Engine's answer to `abusive` per return reference; `department` is always .70 / .20 / .10. */
const SCRIPT: Record<string, number> = { R1: 0.1, R2: 0.42, R3: 0.45, R4: 0.9 };

/** A real in-process Engine (an Engine-class connection) answering from the script above. */
class ScriptedEngine implements Engine {
  model(): string {
    return 'scripted-1.0.0';
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const reference = (request.evidence.return as Return).reference;
    return {
      answers: { abusive: SCRIPT[reference], department: { billing: 0.7, shipping: 0.2, other: 0.1 } },
      provenance: new Provenance('scripted', 'scripted-1.0.0', `req-${reference}`),
    };
  }
}

describe('calibration worked example', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        JudgmentModule.forRoot({
          engine: 'scripted',
          engines: { scripted: { driver: ScriptedEngine } },
          persistence: { enabled: false },
          dataSource: false,
          log: false,
        }),
        JudgmentModule.forFeature([ReturnAbuse]),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(() => app.close());

  it('reproduces the reference bands, review rate and accuracy', async () => {
    const labelled = [
      ['R1', ReturnOutcome.Approve],
      ['R2', ReturnOutcome.Approve],
      ['R3', ReturnOutcome.Reject],
      ['R4', ReturnOutcome.Reject],
    ] as const;
    const report = await app
      .get(Calibration)
      .for(ReturnAbuse)
      .cases(
        labelled.map(([reference, expected]) => LabelledCase.of(new ReturnAbuse({ reference, reason: 'x' }), expected)),
      )
      .run();

    expect(report.skipped).toBe(0);
    expect(report.results).toHaveLength(1);
    const [result] = report.results;
    expect(result.identity).toEqual({
      questions: expect.stringMatching(/^[0-9a-f]{64}$/),
      model: 'scripted-1.0.0',
      decision: 'ReturnDecision',
      decisionVersion: '1',
      language: null,
    });
    expect(result).toMatchObject({ cases: 4, unassessed: 0, sentToReview: 2, automatic: 2, correct: 2 });
    expect(result.reviewRate).toBe(0.5);
    expect(result.accuracy).toBe(1);
    expect(result.bands).toEqual([
      band('abusive', 0.1, 0.2, { approve: 1 }, { sentToReview: 0, automatic: 1, correct: 1 }, 0, 1),
      band('abusive', 0.4, 0.5, { approve: 1, reject: 1 }, { sentToReview: 2, automatic: 0, correct: 0 }, 1, null),
      band('abusive', 0.9, 1, { reject: 1 }, { sentToReview: 0, automatic: 1, correct: 1 }, 0, 1),
      // Confidence .70 − .20 is 0.49999999999999994 in floating point: rounded, it is the 0.5 band.
      band('department', 0.5, 0.6, { approve: 2, reject: 2 }, { sentToReview: 2, automatic: 2, correct: 2 }, 0.5, 1),
    ]);
  });
});

function band(
  question: string,
  from: number,
  to: number,
  expected: Record<string, number>,
  counts: { sentToReview: number; automatic: number; correct: number },
  reviewRate: number,
  accuracy: number | null,
) {
  const cases = counts.sentToReview + counts.automatic;
  return { question, from, to, cases, expected, ...counts, reviewRate, accuracy };
}
