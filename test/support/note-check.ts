// A Judgment whose every record waits for Review, for suites that need records in Review without a real Engine
// (the mock driver answers): the HTTP defaults suite, and the time-zone child process.
import { type Assessment, Decision, Evidence, Judgment, Likelihood } from 'nestjs-judgment';

export enum NoteOutcome {
  Keep = 'keep',
  Check = 'check',
}

@Decision({ outcomes: NoteOutcome, review: [NoteOutcome.Check] })
export class NoteDecision implements Decision<NoteCheck, NoteOutcome> {
  decide(_assessment: Assessment<NoteCheck>): NoteOutcome {
    return NoteOutcome.Check;
  }
}

@Judgment({ name: 'note-check', decision: () => NoteDecision })
export class NoteCheck implements Judgment {
  constructor(readonly note: string) {}
  evidence() {
    return { note: Evidence.untrusted(this.note) };
  }
  questions() {
    return { rude: Likelihood.that('Is the note rude?') };
  }
}
