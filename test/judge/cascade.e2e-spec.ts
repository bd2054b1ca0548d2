// The escalation cascade (issue 33, points 1 and 3), inline: a case decided in the cheap tier's Review band is asked of
// the strong tier instead of going to Review; after the last tier, Review. Each tier's attempt has its own record,
// linked to the one before; a retry pays no tier twice; explain shows the path; events say which tier decided.
// PostgreSQL, two Jev simulators over real HTTP (one per connection), counting the requests each received.
import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import {
  type Assessment,
  AssessmentDecided,
  AwaitingReview,
  Decision,
  EngineFailed,
  Evidence,
  Judgment,
  Likelihood,
} from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import type { AssessmentEscalated } from '../../libs/judgment/src/events/judgment.events';
import { RecordQueries } from '../../libs/judgment/src/records/record-queries.service';
import { cascadeStop, formatExplanation } from '../../libs/judgment/src/cli/explain.command';
import { recordDetail } from '../../libs/judgment/src/records/record.view';
import {
  type Harness,
  SuiteDatabase,
  compileApp,
  decisionRequests,
  jevConnection,
  rejectionOf,
  startApp,
  startSimulator,
} from './support';

enum ClaimOutcome {
  Pay = 'pay',
  Check = 'check',
  Refuse = 'refuse',
}

/** Refuse above `refuse`, pay below `pay`, a person in between: the Review band is `check`. */
@Decision({ outcomes: ClaimOutcome, review: [ClaimOutcome.Check], name: 'claim-decision', version: '1' })
class ClaimDecision implements Decision<ClaimCheck, ClaimOutcome> {
  readonly thresholds = { refuse: 0.65, pay: 0.35 };
  decide(assessment: Assessment<ClaimCheck>): ClaimOutcome {
    const fraud = assessment.likelihood('fraud');
    if (fraud.above(this.thresholds.refuse)) return ClaimOutcome.Refuse;
    if (fraud.above(this.thresholds.pay)) return ClaimOutcome.Check;
    return ClaimOutcome.Pay;
  }
}

// The cheap tier acts only when it is very sure (a wide band); the strong tier decides all but the closest cases.
@Judgment({
  name: 'claim-check',
  decision: ClaimDecision,
  cascade: [
    { connection: 'cheap', thresholds: { refuse: 0.9, pay: 0.1 } },
    { connection: 'strong', thresholds: { refuse: 0.6, pay: 0.4 } },
  ],
})
class ClaimCheck implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { claim: Evidence.untrusted(this.text) };
  }
  questions() {
    return { fraud: Likelihood.that('Is this insurance claim fraudulent?') };
  }
}

/** The same Judgment without a cascade, on the strong connection: what it decides when asked directly. */
@Judgment({ name: 'claim-check-plain', decision: ClaimDecision, engine: 'strong' })
class PlainClaimCheck extends ClaimCheck {}

/** Cascade events, in order. */
@Injectable()
class CascadeEvents {
  static readonly seen: object[] = [];

  // Listened to by name, as the README shows: the class is not on the root entry point.
  @OnEvent('judgment.assessment.escalated')
  escalated(event: AssessmentEscalated) {
    CascadeEvents.seen.push(event);
  }

  @OnEvent(AssessmentDecided.NAME)
  decided(event: AssessmentDecided) {
    CascadeEvents.seen.push(event);
  }
}

let db: SuiteDatabase;
let cheap: JevSimulator;
let strong: JevSimulator;
let cheapUrl: string;
let strongUrl: string;
let harness: Harness | undefined;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_judge_cascade');
  ({ sim: cheap, url: cheapUrl } = await startSimulator());
  ({ sim: strong, url: strongUrl } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await cheap?.stop();
  await strong?.stop();
});

beforeEach(async () => {
  await db.reset();
  cheap.clearLog().clearFaults();
  strong.clearLog().clearFaults();
  CascadeEvents.seen.length = 0;
});

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const setup = (judgments: Function[]) => ({
  typeOrm: db.typeOrm('postgres'),
  options: {
    engine: 'cheap',
    engines: {
      cheap: jevConnection(cheapUrl, { model: 'jev-1.13.0', retries: 0 }),
      strong: jevConnection(strongUrl, { model: 'jev-1.13.0', retries: 0 }),
    },
  },
  judgments,
  providers: [CascadeEvents],
});
const start = (judgments: Function[] = [ClaimCheck, PlainClaimCheck]) => startApp(setup(judgments));

/** What starting an app with these Judgments fails with (the app is closed either way). */
async function startFailure(judgments: Function[]): Promise<unknown> {
  harness = await compileApp(setup(judgments));
  return rejectionOf(harness.app.init());
}

const asked = () => ({ cheap: decisionRequests(cheap).length, strong: decisionRequests(strong).length });

describe('an escalation cascade, inline', () => {
  it('a case the cheap tier is sure of is decided there: the strong tier is never asked', async () => {
    harness = await start();
    const assessment = await harness.judge.assess(new ClaimCheck('Stolen bike. [[fraud=0.95]]'));
    expect(await assessment.outcome()).toBe(ClaimOutcome.Refuse);
    expect(asked()).toEqual({ cheap: 1, strong: 0 });
    const [record] = await harness.records();
    expect(await harness.records()).toHaveLength(1);
    expect(record).toMatchObject({
      outcome: 'refuse',
      decisionThresholds: { refuse: 0.9, pay: 0.1 },
      provenanceDetails: { cascade: { tier: 1, of: 2, connection: 'cheap', escalatedFrom: null } },
      reviewRequestedAt: null,
    });
  });

  it("a case in the cheap tier's Review band is asked of the strong tier, which decides it", async () => {
    harness = await start();
    const assessment = await harness.judge.assess(new ClaimCheck('Flooded cellar. [[fraud=0.7]]'));
    // 0.7 is in the cheap tier's band (0.1–0.9): without the cascade it would await Review.
    expect(await assessment.outcome()).toBe(ClaimOutcome.Refuse);
    expect(asked()).toEqual({ cheap: 1, strong: 1 });

    const [first, second] = await harness.records();
    expect(first).toMatchObject({
      outcome: 'check',
      decisionThresholds: { refuse: 0.9, pay: 0.1 },
      decisionTrace: { escalated: { tier: 2, connection: 'strong' } },
      reviewRequestedAt: null,
      provenanceDetails: { cascade: { tier: 1, of: 2, connection: 'cheap', escalatedFrom: null } },
    });
    expect(second).toMatchObject({
      judgment: 'claim-check',
      outcome: 'refuse',
      decisionThresholds: { refuse: 0.6, pay: 0.4 },
      reviewRequestedAt: null,
      provenanceDetails: { cascade: { tier: 2, of: 2, connection: 'strong', escalatedFrom: first.id } },
    });
    expect(second.decisionTrace?.escalated).toBeUndefined();

    // Events say which tier escalated and which decided.
    expect(CascadeEvents.seen.map((event) => (event.constructor as unknown as { NAME: string }).NAME)).toEqual([
      'judgment.assessment.escalated',
      'judgment.assessment.decided',
    ]);
    const [escalated, decided] = CascadeEvents.seen as [AssessmentEscalated, AssessmentDecided];
    expect(escalated).toMatchObject({
      outcome: ClaimOutcome.Check,
      record: { id: first.id },
      from: { tier: 1, connection: 'cheap' },
      to: { tier: 2, connection: 'strong' },
    });
    expect(decided).toMatchObject({
      outcome: ClaimOutcome.Refuse,
      record: { id: second.id },
      review: null,
      tier: { tier: 2, of: 2, connection: 'strong', escalatedFrom: first.id },
    });
  });

  it('a case in the last tier’s band too goes to Review, on the last tier’s record', async () => {
    harness = await start();
    const assessment = await harness.judge.assess(new ClaimCheck('Lost luggage. [[fraud=0.5]]'));
    const decided = await assessment.outcome();
    expect(decided).toBeInstanceOf(AwaitingReview);
    const [first, second] = await harness.records();
    expect(decided).toMatchObject({ outcome: ClaimOutcome.Check, recordId: second.id, reason: { cause: 'band' } });
    expect(first).toMatchObject({ outcome: 'check', reviewRequestedAt: null });
    expect(second).toMatchObject({ outcome: 'check', reviewCause: 'band' });
    expect(second.reviewRequestedAt).not.toBeNull();
    expect(asked()).toEqual({ cheap: 1, strong: 1 });
  });

  it('without a cascade nothing changes: the same Decision with its own thresholds sends the case to Review', async () => {
    harness = await start();
    const assessment = await harness.judge.assess(new PlainClaimCheck('Flooded cellar. [[fraud=0.5]]'));
    expect(await assessment.outcome()).toBeInstanceOf(AwaitingReview);
    expect(asked()).toEqual({ cheap: 0, strong: 1 });
    const [record] = await harness.records();
    expect(record.provenanceDetails?.cascade).toBeUndefined();
    expect(record).toMatchObject({ decisionThresholds: { refuse: 0.65, pay: 0.35 }, reviewCause: 'band' });
  });

  it('when the strong tier fails, a retry asks only the strong tier: the cheap tier is not paid twice', async () => {
    harness = await start();
    strong.fail({ status: 503 });
    const first = await harness.judge.assess(new ClaimCheck('Flooded cellar. [[fraud=0.7]]'));
    expect(await rejectionOf(first.outcome())).toBeInstanceOf(EngineFailed);
    expect(asked()).toEqual({ cheap: 1, strong: 1 });

    const retry = await harness.judge.assess(new ClaimCheck('Flooded cellar. [[fraud=0.7]]'));
    expect(await retry.outcome()).toBe(ClaimOutcome.Refuse);
    expect(asked()).toEqual({ cheap: 1, strong: 2 });

    const records = await harness.records();
    expect(records.map((r) => [r.provenanceDetails?.cascade, r.outcome, r.failureType])).toEqual([
      [{ tier: 1, of: 2, connection: 'cheap', escalatedFrom: null }, 'check', null],
      [{ tier: 2, of: 2, connection: 'strong', escalatedFrom: records[0].id }, null, 'EngineFailed'],
      [{ tier: 1, of: 2, connection: 'cheap', escalatedFrom: null }, 'check', null],
      [{ tier: 2, of: 2, connection: 'strong', escalatedFrom: records[2].id }, 'refuse', null],
    ]);
    // The retry's first tier was recorded from the answers already paid for: the same Engine request.
    expect(records[2].requestId).not.toBeNull();
    expect(records[2].requestId).toBe(records[0].requestId);
    expect(records[2].answers).toEqual(records[0].answers);
  });

  it('with throwOnFailure false, a tier that cannot answer leaves the case in Review on the tier before', async () => {
    harness = await startApp({
      typeOrm: db.typeOrm('postgres'),
      options: {
        engine: 'cheap',
        throwOnFailure: false,
        engines: {
          cheap: jevConnection(cheapUrl, { retries: 0 }),
          strong: jevConnection(strongUrl, { retries: 0 }),
        },
      },
      judgments: [ClaimCheck],
    });
    strong.fail({ status: 503 });
    const assessment = (await harness.judge.assess(
      new ClaimCheck('Flooded cellar. [[fraud=0.7]]'),
    )) as Assessment<ClaimCheck>;
    const decided = await assessment.outcome();
    const [first, failed] = await harness.records();
    expect(decided).toMatchObject({ outcome: ClaimOutcome.Check, recordId: first.id });
    expect((decided as AwaitingReview<ClaimOutcome>).reason.text).toMatch(/Tier 2 could not answer/);
    expect(first.reviewRequestedAt).not.toBeNull();
    expect(failed).toMatchObject({ failureType: 'EngineFailed' });
  });

  it('dispatch() with the queue off escalates the same way: each tier assessed, then decided from its record', async () => {
    harness = await start();
    await harness.judge.dispatch(new ClaimCheck('Flooded cellar. [[fraud=0.95]]'));
    await harness.judge.dispatch(new ClaimCheck('Flooded cellar. [[fraud=0.7]]'));
    const [sure, banded, decided] = await harness.records();
    expect(sure).toMatchObject({ outcome: 'refuse', decisionThresholds: { refuse: 0.9, pay: 0.1 } });
    expect(banded).toMatchObject({
      outcome: 'check',
      reviewRequestedAt: null,
      decisionTrace: { escalated: { tier: 2 } },
    });
    expect(decided).toMatchObject({
      outcome: 'refuse',
      reviewRequestedAt: null,
      provenanceDetails: { cascade: { tier: 2, escalatedFrom: banded.id } },
    });
    expect(asked()).toEqual({ cheap: 2, strong: 1 });
  });

  it('explain shows the path: tier 1 answered, in band, escalated; tier 2 decided', async () => {
    harness = await start();
    const assessment = await harness.judge.assess(new ClaimCheck('Flooded cellar. [[fraud=0.7]]'));
    await assessment.outcome();
    const [first, second] = await harness.records();
    const queries = harness.app.get(RecordQueries);
    for (const record of [first, second]) {
      const path = (await queries.cascadePath(record)).map(cascadeStop);
      expect(path).toEqual([
        { record: first.id, tier: 1, connection: 'cheap', model: first.model, outcome: 'check', result: 'escalated' },
        { record: second.id, tier: 2, connection: 'strong', model: second.model, outcome: 'refuse', result: 'decided' },
      ]);
    }
    const text = formatExplanation(recordDetail(first), (await queries.cascadePath(first)).map(cascadeStop));
    expect(text).toContain('Escalation path:');
    expect(text).toMatch(
      new RegExp(
        `tier 1 \\(cheap, [^)]+\\), record #${first.id}: answered, decided check \\(in the Review band\\), escalated  ← this record`,
      ),
    );
    expect(text).toMatch(
      new RegExp(`tier 2 \\(strong, [^)]+\\), record #${second.id}: answered, decided refuse$`, 'm'),
    );
    expect(text).toContain('Escalated: check is a Review Outcome, so tier 2 (strong) was asked instead of Review.');
  });
});

describe('a cascade that does not fit its Decision or the connections', () => {
  it('a tier naming a threshold the Decision does not declare refuses the start, naming the Judgment and tier', async () => {
    @Judgment({
      name: 'misfit',
      decision: ClaimDecision,
      // Typed: `rejct` would not compile; a cast stands for a declaration the compiler cannot see (e.g. plain JS).
      cascade: [{ connection: 'cheap' }, { connection: 'strong', thresholds: { rejct: 0.5 } as never }],
    })
    class Misfit extends ClaimCheck {}
    const error = await startFailure([Misfit]);
    expect(String(error)).toMatch(
      /The cascade of misfit, tier 2 \("strong"\), names threshold "rejct", which claim-decision does not declare \(it declares refuse, pay\)/,
    );
  });

  it('a tier naming an unknown connection refuses the start, naming the connection', async () => {
    @Judgment({
      name: 'unknown-tier',
      decision: ClaimDecision,
      cascade: [{ connection: 'cheap' }, { connection: 'nope' }],
    })
    class UnknownTier extends ClaimCheck {}
    const error = await startFailure([UnknownTier]);
    expect(String(error)).toMatch(/nope/);
  });
});
