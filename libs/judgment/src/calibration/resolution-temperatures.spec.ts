// How a person's Outcome becomes a Likelihood truth for a temperature refit (issue 32, point 5): read back through the
// Decision, and left out whenever the Outcome does not settle it.
import { type Assessment, Decision, Evidence, Judgment, Likelihood } from 'nestjs-judgment';
import { readQuestions } from '../questions/question';
import { readBackTruth } from './resolution-temperatures';

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

/** Blocks harmful posts, holds the doubtful ones for a person, publishes the rest; spam is never read. */
@Decision({ outcomes: Moderation, review: [Moderation.Hold] })
class PostDecision implements Decision<Post, Moderation> {
  decide(assessment: Assessment<Post>): Moderation {
    const harmful = assessment.likelihood('harmful');
    if (harmful.above(0.8)) return Moderation.Block;
    return harmful.above(0.4) ? Moderation.Hold : Moderation.Publish;
  }
}

const post = new Post('a post');
const questions = readQuestions('post', post.questions());
const answers = { harmful: 0.6, spam: 0.2 };
const truth = (question: string, label: string) =>
  readBackTruth(new PostDecision(), post, questions, answers, question, label);

describe('readBackTruth', () => {
  it('reads a block as harmful and a publish as not harmful', () => {
    expect(truth('harmful', 'block')).toBe(true);
    expect(truth('harmful', 'publish')).toBe(false);
  });

  it('leaves the answer out when the Outcome does not settle it: a Review Outcome, or a Likelihood never read', () => {
    expect(truth('harmful', 'hold')).toBeNull(); // neither 1 nor 0 gives hold
    expect(truth('spam', 'block')).toBeNull(); // spam at 1 and at 0 give the same Outcome
    expect(truth('harmful', 'not-an-outcome')).toBeNull();
  });
});
