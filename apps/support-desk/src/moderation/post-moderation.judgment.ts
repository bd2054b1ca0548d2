import { Evidence, Judgment, Likelihood } from 'nestjs-judgment';
import { Harm } from './harm';
import { PostModerationDecision } from './post-moderation.decision';
import { Post } from './post.entity';

/**
 * Which harms, if any, does this post contain? Each harm is an independent Likelihood. An escalation cascade: the
 * cheap OpenAI-compatible connection is asked first; a post it leaves in the Decision's Review band (`hold`) is asked
 * of Jev instead of going to a moderator, and only what Jev leaves there is held. Both tiers decide with the
 * Decision's own thresholds, the ones the demo's calibration lock vouches for under either model.
 */
@Judgment({
  name: 'post-moderation',
  decision: () => PostModerationDecision,
  cascade: [{ connection: 'openai' }, { connection: 'jev' }],
})
export class PostModeration implements Judgment {
  constructor(readonly post: Post) {}

  evidence() {
    return { post: { body: Evidence.untrusted(this.post.body) } };
  }

  questions() {
    const harms: Record<Harm, string> = {
      [Harm.Spam]: 'Is the post unsolicited advertising or spam?',
      [Harm.Harassment]: 'Does the post harass, insult or threaten a person?',
      [Harm.Hate]: 'Does the post attack people for who they are (origin, religion, gender, disability)?',
      [Harm.PersonalData]: "Does the post reveal someone's private contact or identity data?",
    };
    return { harms: Likelihood.each(harms) };
  }
}
