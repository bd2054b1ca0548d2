import { type Assessment, Decision } from 'nestjs-judgment';
import type { PostModeration } from './post-moderation.judgment';

/** What happens to a post. */
export enum ModerationOutcome {
  Publish = 'publish',
  Hold = 'hold',
  Remove = 'remove',
}

/** Publishes clean posts, removes clear harms, and holds the uncertain middle for a moderator. */
@Decision({
  outcomes: ModerationOutcome,
  review: [ModerationOutcome.Hold],
  version: '1',
  outcomeType: 'ModerationOutcome',
})
export class PostModerationDecision implements Decision<PostModeration, ModerationOutcome> {
  readonly thresholds = { remove: 0.85, hold: 0.4 };

  decide(assessment: Assessment<PostModeration>): ModerationOutcome {
    const worst = assessment.likelihoodSet('harms').max();
    if (worst.above(this.thresholds.remove)) return ModerationOutcome.Remove;
    if (worst.above(this.thresholds.hold)) return ModerationOutcome.Hold;
    return ModerationOutcome.Publish;
  }
}
