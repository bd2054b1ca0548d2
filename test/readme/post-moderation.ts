import { type Assessment, Decision, Evidence, Judgment, Likelihood } from 'nestjs-judgment';

export enum Harm {
  Spam = 'spam',
  Harassment = 'harassment',
  PersonalData = 'personal_data',
}

export enum Moderation {
  Publish = 'publish',
  Hold = 'hold',
  Remove = 'remove',
}

@Decision({ outcomes: Moderation, review: [Moderation.Hold], version: '1' })
export class ModeratePost implements Decision<PostModeration, Moderation> {
  decide(assessment: Assessment<PostModeration>): Moderation {
    const harms = assessment.likelihoodSet('harms');
    if (harms.max().above(0.85)) return Moderation.Remove;
    if (harms.labelsAbove(0.4).length > 0) return Moderation.Hold;
    return Moderation.Publish;
  }
}

@Judgment({ name: 'post-moderation', decision: () => ModeratePost })
export class PostModeration implements Judgment {
  constructor(readonly body: string) {}

  evidence() {
    return { post: { body: Evidence.untrusted(this.body) } };
  }

  questions() {
    const harms: Record<Harm, string> = {
      [Harm.Spam]: 'Is the post unsolicited advertising or spam?',
      [Harm.Harassment]: 'Does the post harass, insult or threaten a person?',
      [Harm.PersonalData]: "Does the post reveal someone's private contact or identity data?",
    };
    return { harms: Likelihood.each(harms) };
  }
}
