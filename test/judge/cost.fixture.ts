// The Judgments, Decision and options of cost.e2e-spec.ts: the Jev simulator as two connections, `priced` (declares a
// price) and `free` (declares none). cost-app.module.ts is the same app for the `judgment` command line.
import { type Assessment, Decision, Evidence, Judgment, type JudgmentModuleOptions, Likelihood } from 'nestjs-judgment';
import { API_KEY, MODEL } from './support';

/** The price of the `priced` connection. */
export const PRICE = { inputPerMillion: 0.15, outputPerMillion: 0.6, perRequest: 0.0001, currency: 'USD' };

export enum NoteOutcome {
  Allow = 'allow',
  Block = 'block',
}

@Decision({ outcomes: NoteOutcome, name: 'note-policy' })
export class NotePolicy implements Decision<PricedNote | FreeNote, NoteOutcome> {
  decide(assessment: Assessment<PricedNote | FreeNote>): NoteOutcome {
    return assessment.likelihood('flagged').above(0.5) ? NoteOutcome.Block : NoteOutcome.Allow;
  }
}

abstract class Note implements Judgment {
  constructor(readonly note: string) {}

  evidence() {
    return { note: Evidence.untrusted(this.note) };
  }

  questions() {
    return { flagged: Likelihood.that('Does the note ask for something against the rules?') };
  }
}

/** Asked of the `priced` connection. */
@Judgment({ name: 'priced-note', engine: 'priced', decision: () => NotePolicy })
export class PricedNote extends Note {}

/** Asked of the `free` connection, which declares no price. */
@Judgment({ name: 'free-note', engine: 'free', decision: () => NotePolicy })
export class FreeNote extends Note {}

export function costOptions(url: string): JudgmentModuleOptions {
  const connection = { driver: 'jev', key: API_KEY, url, model: MODEL, timeout: 2, retries: 2 };
  return { engine: 'priced', engines: { priced: { ...connection, price: PRICE }, free: connection }, log: false };
}
