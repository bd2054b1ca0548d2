// An app whose records live in a PostgreSQL database (CHECK_SCHEMA_DATABASE on the suites' server) that the package's
// migrations may not have run on: `judgment check` reports the missing tables or columns as a failure.
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Decision, Judgment, JudgmentModule, Likelihood, judgmentEntities } from 'nestjs-judgment';
import { PG } from '../support/postgres';

@Judgment({ name: 'schema-note' })
export class SchemaNote implements Judgment {
  evidence() {
    return { note: 'Hello' };
  }

  questions() {
    return { flagged: Likelihood.that('Does the note ask for something against the rules?') };
  }
}

enum NoteOutcome {
  Keep = 'keep',
  Check = 'check',
}

/** With CHECK_SCHEMA_REVIEWERS=2, a Decision whose Reviews need two reviewers' votes (the votes' table). */
@Decision({
  outcomes: NoteOutcome,
  review: { outcomes: [NoteOutcome.Check], reviewers: Number(process.env.CHECK_SCHEMA_REVIEWERS ?? 1) },
  name: 'paired-note',
})
export class PairedNoteDecision {
  decide(): NoteOutcome {
    return NoteOutcome.Check;
  }
}

@Module({
  imports: [
    TypeOrmModule.forRoot({
      ...PG,
      database: process.env.CHECK_SCHEMA_DATABASE,
      entities: judgmentEntities,
      retryAttempts: 0,
    }),
    JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock' } } }),
    JudgmentModule.forFeature([SchemaNote, PairedNoteDecision]),
  ],
})
export class CheckSchemaModule {}
