import { AssessmentRecord } from './assessment-record.entity';
import { CreateJudgmentAssessments1764400000000 } from './migrations/1764400000000-create-judgment-assessments';
import { CalibrationColumns1764500000000 } from './migrations/1764500000000-calibration-columns';
import { ReviewClaims1764600000000 } from './migrations/1764600000000-review-claims';
import { DecisionTrace1764800000000 } from './migrations/1764800000000-decision-trace';
import { ReviewIndexes1764900000000 } from './migrations/1764900000000-review-indexes';
import { Timestamptz1765000000000 } from './migrations/1765000000000-timestamptz';
import { ReviewDeskIndexes1765100000000 } from './migrations/1765100000000-review-desk-indexes';
import { ReviewCause1765250000000 } from './migrations/1765250000000-review-cause';
import { OutcomeTypeNamesTheEnum1765300000000 } from './migrations/1765300000000-outcome-type-names-the-enum';
import { ClaimedAt1765500000000 } from './migrations/1765500000000-claimed-at';
import { ReviewTriage1765510000000 } from './migrations/1765510000000-review-triage';
import { RoundCost1765520000000 } from './migrations/1765520000000-round-cost';
import { ReviewVotes1765530000000 } from './migrations/1765530000000-review-votes';
import { ClaimHolderKey1765540000000 } from './migrations/1765540000000-claim-holder-key';
import { RecordJob1765600000000 } from './migrations/1765600000000-record-job';
import { PartitionedAssessments1765800000000 } from './migrations/1765800000000-partitioned-assessments';

/** The entities to list in a DataSource that does not use `autoLoadEntities`. */
export const judgmentEntities = [AssessmentRecord];
/**
 * The migrations that create the package's tables (PostgreSQL and SQLite). `judgmentMigrations.partitioned` holds the
 * opt-in one that partitions `judgment_assessments` by month on PostgreSQL (nothing on SQLite), so retention drops
 * whole months: list it after them, `[...judgmentMigrations, ...judgmentMigrations.partitioned]` (see the README's
 * Persistence section). A spread of `judgmentMigrations` alone never includes it.
 */
export const judgmentMigrations = withPartitioned([
  CreateJudgmentAssessments1764400000000,
  CalibrationColumns1764500000000,
  ReviewClaims1764600000000,
  DecisionTrace1764800000000,
  ReviewIndexes1764900000000,
  Timestamptz1765000000000,
  ReviewDeskIndexes1765100000000,
  ReviewCause1765250000000,
  OutcomeTypeNamesTheEnum1765300000000,
  ClaimedAt1765500000000,
  ReviewTriage1765510000000,
  RoundCost1765520000000,
  ReviewVotes1765530000000,
  ClaimHolderKey1765540000000,
  RecordJob1765600000000,
]);

/**
 * The list with `partitioned` beside its items, not enumerable: TypeORM reads a migrations list given as is with
 * Object.values, which must not see it.
 */
function withPartitioned<T extends Function[]>(migrations: T): T & { readonly partitioned: readonly Function[] } {
  return Object.defineProperty(migrations, 'partitioned', {
    value: [PartitionedAssessments1765800000000],
    enumerable: false,
  }) as T & { readonly partitioned: readonly Function[] };
}
