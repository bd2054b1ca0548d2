// What a threshold suggestion may propose and how it reports (issue 27, point 3): a Review band is never closed, the
// report says which candidate stopped the fixed sequence and why, and the case-count estimate is honest.
import { type Assessment, Decision, Evidence, Judgment, Likelihood } from 'nestjs-judgment';
import { InvalidSuggestion } from 'nestjs-judgment/calibration';
import { Assessment as AssessmentValue } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import { decisionMetadata } from '../decision/decision.decorator';
import { readQuestions } from '../questions/question';
import { DEFAULT_MIN_BAND, type SuggestOptions, type SuggestionCase, suggestThresholds } from './threshold-suggestion';
import { mulberry32 } from '../fingerprint/seeded-random';

enum Moderation {
  Publish = 'publish',
  Hold = 'hold',
  Block = 'block',
}

@Judgment({ name: 'post' })
class Post implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { post: Evidence.untrusted(this.text) };
  }
  questions() {
    return { harmful: Likelihood.that('Is the post harmful?'), spam: Likelihood.that('Is the post spam?') };
  }
}

/** Blocks above `block`, holds for a moderator from `hold`, publishes below: [hold, block) is its Review band. */
@Decision({ outcomes: Moderation, review: [Moderation.Hold], version: '1' })
class PostDecision implements Decision<Post, Moderation> {
  readonly thresholds = { block: 0.8, hold: 0.4 };
  decide(assessment: Assessment<Post>): Moderation {
    const harmful = assessment.likelihood('harmful');
    if (harmful.above(this.thresholds.block)) return Moderation.Block;
    if (harmful.above(this.thresholds.hold)) return Moderation.Hold;
    return Moderation.Publish;
  }
}

/** Two thresholds on two answers that bound no band: blocks harmful posts, holds spam. */
@Decision({ outcomes: Moderation, review: [Moderation.Hold], version: '1' })
class TwoAnswersDecision implements Decision<Post, Moderation> {
  readonly thresholds = { harmful: 0.7, spam: 0.5 };
  decide(assessment: Assessment<Post>): Moderation {
    if (assessment.likelihood('harmful').above(this.thresholds.harmful)) return Moderation.Block;
    if (assessment.likelihood('spam').above(this.thresholds.spam)) return Moderation.Hold;
    return Moderation.Publish;
  }
}

const questions = readQuestions('post', new Post('').questions());
const identity = { questions: 'q', model: 'm-1', decision: 'PostDecision', decisionVersion: '1', language: null };

/**
 * `count` labelled posts drawn with `seed`: half harmful (p in [0.45, 1)), half not (p in [0, 0.6)), so the two
 * overlap on [0.45, 0.6); spam is drawn apart.
 */
function posts(count: number, seed: number): SuggestionCase[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, index) => {
    const harmful = random() < 0.5;
    const p = Math.round((harmful ? 0.45 + 0.55 * random() : 0.6 * random()) * 100) / 100;
    const spam = Math.round(random() * 100) / 100;
    const answers = { harmful: p, spam };
    return {
      assessment: AssessmentValue.fromAnswers(
        new Post(`post ${index}`),
        questions,
        answers,
        new Provenance('sim', 'm-1'),
        COMPUTE_ONLY,
      ),
      expected: harmful ? Moderation.Block : Moderation.Publish,
    };
  });
}

const suggest = (
  cases: SuggestionCase[],
  options: Partial<SuggestOptions> = {},
  decision: object = new PostDecision(),
) =>
  suggestThresholds(decision as Decision, decisionMetadata(decision.constructor), identity, cases, {
    maxError: 0.2,
    confidence: 0.9,
    ...options,
  });

const width = (thresholds: Readonly<Record<string, number>>) => thresholds.block - thresholds.hold;

describe('a suggestion never closes a Review band', () => {
  // Seed 4: before the band rule, these 40 cases at --max-error 0.2 --confidence 0.9 chose { block: 0.6, hold: 0.6 }.
  const cases = posts(40, 4);

  it('keeps every candidate it tests, proposes or lists at least the default band width apart', () => {
    const suggestion = suggest(cases);
    expect(DEFAULT_MIN_BAND).toBeGreaterThan(0);
    expect(suggestion.minBand).toBe(DEFAULT_MIN_BAND);
    expect(suggestion.bands).toEqual([{ lower: 'hold', upper: 'block', declared: false }]);
    expect(suggestion.chosen).not.toBeNull();
    expect(width(suggestion.chosen!.thresholds)).toBeGreaterThanOrEqual(DEFAULT_MIN_BAND - 1e-9);
    for (const row of suggestion.frontier)
      expect(width(row.thresholds)).toBeGreaterThanOrEqual(DEFAULT_MIN_BAND - 1e-9);
    expect(suggestion.chosen!.reviewRate).toBeGreaterThan(0);
  });

  it('keeps a wider band when asked (minBand)', () => {
    const suggestion = suggest(cases, { minBand: 0.3 });
    for (const row of [suggestion.chosen, ...suggestion.frontier].filter((row) => row !== null)) {
      expect(width(row!.thresholds)).toBeGreaterThanOrEqual(0.3 - 1e-9);
    }
  });

  it.each([0, -0.1, 1, Number.NaN])('refuses a minBand of %p', (minBand) => {
    expect(() => suggest(cases, { minBand })).toThrow(InvalidSuggestion);
    expect(() => suggest(cases, { minBand })).toThrow(/minBand \(--min-band\)/);
  });

  it('finds no band between thresholds on different answers, and keeps a declared one', () => {
    const decision = new TwoAnswersDecision();
    expect(suggest(cases, {}, decision).bands).toEqual([]);
    const declared = suggest(cases, { reviewBands: [['spam', 'harmful']] }, decision);
    expect(declared.bands).toEqual([{ lower: 'spam', upper: 'harmful', declared: true }]);
    for (const row of [declared.chosen, ...declared.frontier].filter((row) => row !== null)) {
      expect(row!.thresholds.harmful - row!.thresholds.spam).toBeGreaterThanOrEqual(DEFAULT_MIN_BAND - 1e-9);
    }
  });

  it('refuses a declared band naming a threshold the Decision does not declare', () => {
    expect(() => suggest(cases, { reviewBands: [['hold', 'remove']] })).toThrow(/"remove".*block, hold/);
  });
});

describe('the report of the fixed sequence', () => {
  it('says which candidate stopped it and why, and why each listed row is not certified', () => {
    // Seed 1: no candidate is certified on these 40 cases.
    const suggestion = suggest(posts(40, 1));
    expect(suggestion.chosen).toBeNull();
    const stop = suggestion.sequence.stoppedBy;
    expect(stop).not.toBeNull();
    expect(stop!.status).toBe('stopped');
    expect(stop!.pValue).toBeGreaterThan(1 - 0.9);
    expect(stop!.errorBound).toBeGreaterThan(0.2);
    expect(suggestion.sequence.certified).toBe(0);
    expect(suggestion.verdict).toContain(`stopped at ${JSON.stringify(stop!.thresholds)}`);
    for (const row of suggestion.frontier) {
      expect(['not-ordered', 'after-stop', 'stopped']).toContain(row.status);
      // A bound under the target and not certified: never tested, and the row says so.
      if (row.errorBound <= 0.2) expect(['not-ordered', 'after-stop']).toContain(row.status);
    }
  });

  it('marks the certified candidates and says the sequence ran to its end when none failed', () => {
    const suggestion = suggest(posts(200, 5), { maxError: 0.3 });
    expect(suggestion.chosen?.status).toBe('certified');
    expect(suggestion.sequence.certified).toBeGreaterThan(0);
  });
});

describe('the case-count estimate', () => {
  // Before, these estimated 31, 31 and 29 cases (now 40).
  it.each([1, 6, 7])('is above the current count when no candidate meets the target (seed %i)', (seed) => {
    const suggestion = suggest(posts(40, seed));
    expect(suggestion.chosen).toBeNull();
    expect(suggestion.casesNeeded).toBeGreaterThan(40);
    expect(suggestion.verdict).toMatch(new RegExp(`about ${suggestion.casesNeeded} labelled cases \\(now 40\\)`));
  });

  it('says the target cannot be certified whatever the count when every candidate errs at least that often', () => {
    const suggestion = suggest(posts(40, 1), { maxError: 0.01, maxReviewRate: 0.05 });
    expect(suggestion.chosen).toBeNull();
    expect(suggestion.casesNeeded).toBeNull();
    expect(suggestion.verdict).toMatch(/cannot be certified at this error rate whatever the count/);
  });
});

describe('the review capacity (maxReviewsPerDay at the recorded traffic)', () => {
  const cases = posts(200, 5);
  const traffic = { perDay: 500, decisions: 3500, days: 7 };
  const free = suggest(cases, { maxError: 0.3 });

  it('keeps the choice within the capacity, and chooses none above it (it sends the fewest to Review already)', () => {
    expect(free.chosen).not.toBeNull();
    const load = free.chosen!.reviewRate * traffic.perDay; // 3 % of 500: 15 a day
    expect(load).toBeCloseTo(15, 9);
    const within = suggest(cases, { maxError: 0.3, maxReviewsPerDay: 15, traffic });
    expect(within.chosen?.thresholds).toEqual(free.chosen!.thresholds);
    expect(within.capacity).toMatchObject({ maxReviewsPerDay: 15, traffic, maxReviewRate: 0.03 });
    expect(within.capacity!.chosenReviewsPerDay).toBeCloseTo(15, 9);
    expect(within.capacity!.statement).toContain(
      '15 reviews a day at the recorded traffic of 500 decisions a day (3500 over the last 7 days, automatic and ' +
        'sent to Review) allows a review rate ≤ 3 %',
    );
    expect(within.verdict).toContain('(about 15 a day)');
    const above = suggest(cases, { maxError: 0.3, maxReviewsPerDay: 14.9, traffic });
    expect(above.chosen).toBeNull();
    expect(above.verdict).toContain('about 15 reviews a day — 0.1 above the capacity of 14.9');
  });

  it('says the capacity binds, and by how much, when the error target alone is met — never a made-up pick', () => {
    const least = [...free.frontier, free.chosen!]
      .filter((c) => c.certified)
      .sort((a, b) => a.reviewRate - b.reviewRate)[0];
    const held = suggest(cases, { maxError: 0.3, maxReviewsPerDay: 1, traffic });
    expect(least.reviewRate * traffic.perDay).toBeGreaterThan(1);
    expect(held.chosen).toBeNull();
    expect(held.nextVersion).toBeNull();
    const load = Math.round(least.reviewRate * traffic.perDay * 10) / 10;
    expect(held.verdict).toContain('The error target alone is met');
    expect(held.verdict).toContain(`The capacity binds: the certified candidate sending the fewest cases to Review`);
    expect(held.verdict).toContain(
      `about ${load} reviews a day — ${Math.round((load - 1) * 10) / 10} above the capacity of 1`,
    );
  });

  it('says the error target binds when nothing is certified at any review load', () => {
    const held = suggest(posts(40, 1), { maxReviewsPerDay: 1000, traffic });
    expect(held.chosen).toBeNull();
    expect(held.verdict).toContain('The error target binds');
  });

  it('goes on without the capacity, saying so, when no traffic is recorded', () => {
    const held = suggest(cases, { maxError: 0.3, maxReviewsPerDay: 1, traffic: null });
    expect(held.chosen?.thresholds).toEqual(free.chosen!.thresholds);
    expect(held.capacity).toMatchObject({ maxReviewsPerDay: 1, traffic: null, maxReviewRate: null });
    expect(held.capacity!.statement).toMatch(/cannot be checked without recorded traffic.*goes on without it/);
  });

  it.each([0, -3, Number.NaN, Number.POSITIVE_INFINITY, '40'])('refuses a capacity of %p', (maxReviewsPerDay) => {
    expect(() => suggest(cases, { maxReviewsPerDay: maxReviewsPerDay as number, traffic })).toThrow(
      /maxReviewsPerDay \(--max-reviews-per-day\) must be a number of cases above 0/,
    );
  });
});
