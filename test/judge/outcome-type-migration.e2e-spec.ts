// The outcome_type migration (issue 31, point 16): outcome_type names the Outcome enum a Decision declares
// (`outcomeType`), never the Decision. Rows written before, which held the Decision's name when no enum was declared,
// are cleared to NULL; rows naming an enum stay. PostgreSQL and SQLite, up and down.
import { DataSource, type DataSourceOptions, type MigrationInterface } from 'typeorm';
import { judgmentMigrations } from 'nestjs-judgment';
import { PG, recreateDatabase } from '../support/postgres';

const DATABASE = 'judgment_outcome_type_migration';
const NAME = 'OutcomeTypeNamesTheEnum1765300000000';

const kinds: Array<[string, () => Promise<DataSourceOptions>]> = [
  [
    'PostgreSQL',
    async () => {
      await recreateDatabase(DATABASE);
      return { ...PG, database: DATABASE };
    },
  ],
  ['SQLite', async () => ({ type: 'better-sqlite3', database: ':memory:' })],
];

describe.each(kinds)('the outcome_type migration on %s', (_kind, options) => {
  let dataSource: DataSource;

  afterEach(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
  });

  /** The rows' outcome_type by decision. */
  async function outcomeTypes(): Promise<Record<string, string | null>> {
    const rows: Array<{ decision: string; outcome_type: string | null }> = await dataSource.query(
      'SELECT decision, outcome_type FROM judgment_assessments ORDER BY id',
    );
    return Object.fromEntries(rows.map((row) => [row.decision, row.outcome_type]));
  }

  /** Runs one step of the migration (`up` or `down`) on the open data source. */
  async function step(migration: MigrationInterface, direction: 'up' | 'down'): Promise<void> {
    const runner = dataSource.createQueryRunner();
    try {
      await migration[direction](runner);
    } finally {
      await runner.release();
    }
  }

  it("clears the Decision's name from outcome_type, keeps an enum's name, and puts it back on revert", async () => {
    const Migration = judgmentMigrations.find((migration) => migration.name === NAME);
    expect(Migration).toBeDefined();
    // The migrations before it, as an app upgrading from the previous version has run them.
    const before = judgmentMigrations.filter((migration) => migration !== Migration);
    dataSource = await new DataSource({ ...(await options()), migrations: before }).initialize();
    await dataSource.runMigrations();
    const postgres = dataSource.options.type === 'postgres';
    for (const [decision, outcomeType] of [
      ['RefundDecision', 'RefundDecision'],
      ['TicketRouting', 'TicketOutcome'],
    ]) {
      await dataSource.query(
        'INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint, ' +
          `decision, outcome_type, outcome) VALUES ('refund-abuse', '${'a'.repeat(64)}', '[]', '${'0'.repeat(64)}', ` +
          `${postgres ? '$1, $2' : '?, ?'}, 'approve')`,
        [decision, outcomeType],
      );
    }
    const migration = new Migration!();
    await step(migration, 'up');
    expect(await outcomeTypes()).toEqual({ RefundDecision: null, TicketRouting: 'TicketOutcome' });
    await step(migration, 'down');
    expect(await outcomeTypes()).toEqual({ RefundDecision: 'RefundDecision', TicketRouting: 'TicketOutcome' });
  });
});
