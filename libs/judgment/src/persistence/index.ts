import { AssessmentRecord } from './assessment-record.entity';
import { CreateJudgmentAssessments1764400000000 } from './migrations/1764400000000-create-judgment-assessments';
import { CalibrationColumns1764500000000 } from './migrations/1764500000000-calibration-columns';

/** The entities to list in a DataSource that does not use `autoLoadEntities`. */
export const judgmentEntities = [AssessmentRecord];
/** The migrations that create the package's tables (PostgreSQL and SQLite). */
export const judgmentMigrations = [CreateJudgmentAssessments1764400000000, CalibrationColumns1764500000000];
