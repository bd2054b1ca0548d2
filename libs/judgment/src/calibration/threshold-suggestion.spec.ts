// What a threshold suggestion may propose and how it reports (issue 27, point 3): a Review band is never closed, the
// report says which candidate stopped the fixed sequence and why, and the case-count estimate is honest.
import { type Assessment, Decision, Evidence, Judgment, Likelihood } from 'nestjs-judgment';
import { InvalidSuggestion } from 'nestjs-judgment/calibration';
import { Assessment as AssessmentValue } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import { decisionMetadata } from '../decision/decision.decorator';
import { readQuestions } from '../questions/question';
import {
  DEFAULT_MIN_BAND,
  type SuggestOptions,
  type SuggestionCase,
  mulberry32,
  suggestThresholds,
} from './threshold-suggestion';

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
