import './peers';
export { JudgmentHttpModule } from './judgment-http.module';
export { JUDGMENT_HTTP_OPTIONS, type JudgmentHttpExtras } from './judgment-http.module-definition';
export type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';
export { JudgmentHttpExceptionFilter } from './judgment-http-exception.filter';
export {
  errorEnvelope,
  RequestValidationFailed,
  type JudgmentErrorCode,
  type JudgmentErrorEnvelope,
} from './error-envelope';
export { judgmentValidationPipe } from './validation';
export type { RecordWithVotes, ReviewListItem, ReviewPage } from './judgment-reviews.controller';
export type { AuditPage } from './judgment-audits.controller';
export type { RecordPage } from './record-page';
export { DEFAULT_RECORD_LIMIT, MAX_RECORD_LIMIT } from '../records/record-queries.service';
export type { DecisionTrace, TraceComparison } from '../decision/decision-trace';
export type { TracedRead } from '../assessment/reading-trace';
export type {
  AuditSummary,
  AuditView,
  RecordDetail,
  RecordSummary,
  RecordState,
  UntrustedTextView,
} from '../records/record.view';
