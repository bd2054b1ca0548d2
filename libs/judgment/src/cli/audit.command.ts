import { type Command, InvalidArgumentError } from 'commander';
import { type AuditPlan, DEFAULT_PLAN_DAYS, planAudits } from '../calibration/audit-plan';
import { judgmentName } from '../definition/judgment.decorator';
import { InvalidAuditPlan } from '../errors';
import { type AuditAgreement, type AuditedDecision, auditAgreements } from '../lock/audit-agreement';
import { CalibrationLock } from '../lock/calibration-lock';
import { CalibrationGuard } from '../routing/calibration.guard';
import { MAX_RECORD_LIMIT, RecordQueries } from '../records/record-queries.service';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { CliContext } from './cli.context';
import { CliUsageError } from './cli.errors';
import { auditHtml } from './audit.html';
import { formatAgreements } from './audit.format';
import { type PlannedIdentity, TRAFFIC_DAYS, formatPlan } from './audit-plan.format';
import { fail, percent, print, printJson, table } from './cli.output';
import {
  type AuditedPrediction,
  PPI_ASSUMPTION,
  PPI_METHOD,
  type PredictionPoweredEstimate,
  ppiTooFew,
  predictedError,
  predictionPoweredErrorRate,
} from '../calibration/prediction-powered';
import { decisionLabel } from './audit.format';
import { findJudgment } from './eval.command';
import { formatReviewerAgreement, reviewerAgreementReport } from './reviewer-agreement.format';
import { prepareHtml, shownPath, writeHtml } from './html-file';

/** Options of `judgment audit`. */
export interface AuditOptions {
  lock?: string;
  json?: boolean;
  html?: string;
  plan?: boolean;
  maxError?: number;
  confidence?: number;
  days?: number;
}

/**
 * `judgment audit <judgment> [--lock=judgment.lock.json] [--json] [--html=audit.html]`: the audited accuracy of the
 * automatic Outcomes per identity, with Wilson intervals, beside the lock's (`--html` also draws them on one page);
 * exits 1 when an audited interval lies wholly below the lock's (the rule AgreementDropped fires on), so it can gate a
 * deploy or run on a schedule. `--plan --max-error 0.01 [--confidence 0.95] [--days 30]` says instead how many audits
 * the target needs (Clopper–Pearson), how many more, and the audit rate that brings them in time.
 */
export function addAuditCommand(program: Command, context: CliContext): void {
  program
    .command('audit')
    .description('Compare the audited accuracy of automatic Outcomes with the calibration lock, or plan audits')
    .argument('<judgment>', 'the Judgment: its registered name or class name')
    .option('--lock <path>', 'the calibration lock (default: the module option calibration.lock)')
    .option('--json', 'print only JSON')
    .option('--html <path>', 'also write the report as one self-contained HTML page (intervals drawn)')
    .option('--plan', 'say how many audits show an error rate ≤ --max-error, and the audit rate to get them in time')
    .option('--max-error <share>', 'with --plan: the error rate of automatic Outcomes to show, in (0, 1)', number)
    .option('--confidence <share>', 'with --plan: the confidence, in (0, 1) (default 0.95)', number)
    .option('--days <days>', `with --plan: in how many days (default ${DEFAULT_PLAN_DAYS})`, number)
    .action((name: string, options: AuditOptions) => runAudit(context, name, options));
}

async function runAudit(context: CliContext, name: string, options: AuditOptions): Promise<void> {
  const json = options.json === true;
  try {
    if (options.plan) checkPlanOptions(options);
    else if (options.maxError !== undefined || options.confidence !== undefined || options.days !== undefined) {
      throw new CliUsageError(
        '--max-error, --confidence and --days go with --plan: judgment audit <judgment> --plan …',
      );
    }
    const html = options.plan ? null : prepareHtml(options.html);
    await context.start();
    const judgment = judgmentName(findJudgment(context, name));
    const lock =
      options.lock !== undefined
        ? CalibrationLock.read(shownPath(options.lock))
        : context.get(CalibrationGuard).calibrationLock;
    const audited = await allAudited(context.get(RecordQueries), judgment);
    const agreements = auditAgreements(audited, lock);
    if (options.plan) {
      const identities = await plannedIdentities(context.get(RecordQueries), judgment, audited, options);
      const target = { maxError: options.maxError as number, confidence: options.confidence ?? 0.95 };
      const days = options.days ?? DEFAULT_PLAN_DAYS;
      const clean = planAudits({ ...target, days });
      if (json) {
        printJson({
          judgment,
          target,
          days,
          trafficDays: TRAFFIC_DAYS,
          method: PLAN_METHOD,
          cleanAuditsNeeded: clean.cleanAuditsNeeded,
          identities: identities.map(({ identity, plan }) => ({ ...identity, ...plan })),
        });
      } else print(formatPlan(judgment, clean, identities, PLAN_METHOD));
      return;
    }
    const dropped = agreements.some((agreement) => agreement.dropped);
    const lockFile = lock ? shownPath(lock.file) : null;
    const powered = await predictionPowered(context.get(RecordQueries), judgment);
    const withEstimates = agreements.map((agreement) => ({
      ...agreement,
      predictionPowered: powered.get(identityKey(agreement)) ?? {
        estimate: null,
        reason: `no automatic Outcome of the last ${TRAFFIC_DAYS} days`,
      },
    }));
    writeHtml(html, auditHtml(judgment, lockFile, agreements));
    const reviewers = await reviewerAgreementReport(context, judgment);
    if (json) {
      printJson({
        judgment,
        lock: lockFile,
        agreements: withEstimates,
        dropped,
        predictionPowered: { method: PPI_METHOD, assumption: PPI_ASSUMPTION, windowDays: TRAFFIC_DAYS },
        reviewerAgreement: reviewers,
      });
    } else {
      print(formatAgreements(judgment, lockFile, agreements));
      if (agreements.length > 0) print(`\n${formatPredictionPowered(withEstimates)}`);
      print(`\n${formatReviewerAgreement(reviewers)}`);
    }
    if (dropped) process.exitCode = 1;
  } catch (error) {
    fail(error, json);
  }
}

/** A prediction-powered estimate of one identity's error rate, or why there is none. */
type PoweredEstimate = (PredictionPoweredEstimate & { errors: number }) | { estimate: null; reason: string };

function identityKey(identity: {
  decision: string;
  decisionVersion: string | null;
  questions: string;
  model: string;
}): string {
  return JSON.stringify([identity.decision, identity.decisionVersion, identity.questions, identity.model]);
}

/**
 * Per identity, the prediction-powered error rate of the automatic Outcomes of the last TRAFFIC_DAYS days: every one's
 * predicted error (from its answers) and the audited ones' findings.
 */
async function predictionPowered(records: RecordQueries, judgment: string): Promise<Map<string, PoweredEstimate>> {
  const rows = await records.automaticAnswers(judgment, new Date(Date.now() - TRAFFIC_DAYS * 86_400_000));
  const groups = new Map<string, { predictions: number[]; audited: AuditedPrediction[] }>();
  for (const row of rows) {
    const key = identityKey(row);
    const group = groups.get(key) ?? { predictions: [], audited: [] };
    const predicted = predictedError(row.answers);
    group.predictions.push(predicted);
    if (row.wrong !== null) group.audited.push({ predicted, wrong: row.wrong });
    groups.set(key, group);
  }
  const estimates = new Map<string, PoweredEstimate>();
  for (const [key, { predictions, audited }] of groups) {
    const errors = audited.filter((audit) => audit.wrong).length;
    const tooFew = ppiTooFew(audited.length, errors);
    const estimate = tooFew === null ? predictionPoweredErrorRate(predictions, audited, 0.95) : null;
    estimates.set(key, estimate ? { ...estimate, errors } : { estimate: null, reason: tooFew ?? 'no estimate' });
  }
  return estimates;
}

/** The method a plan uses, as printed with it. */
const PLAN_METHOD =
  'one-sided Clopper–Pearson (exact binomial) bound of the error rate of audited automatic Outcomes; the audits are ' +
  'a uniform random sample of them (the audit rate draws them independently of their answers and Outcome).';

/** A plan's target, confidence and horizon, checked before anything is read: a usage error (exit 2) names the fix. */
function checkPlanOptions(options: AuditOptions): void {
  if (options.maxError === undefined) {
    throw new CliUsageError('--plan needs --max-error <share>, the error rate to show, e.g. --max-error 0.01.');
  }
  if (options.html !== undefined) throw new CliUsageError('--plan prints the plan: leave out --html.');
  try {
    planAudits({ maxError: options.maxError, confidence: options.confidence, days: options.days });
  } catch (error) {
    if (error instanceof InvalidAuditPlan) throw new CliUsageError(error.message);
    throw error;
  }
}

/** Every resolved audit of the Judgment, page by page (a list query returns at most MAX_RECORD_LIMIT at once). */
async function allAudited(records: RecordQueries, judgment: string): Promise<AssessmentRecord[]> {
  const all: AssessmentRecord[] = [];
  for (let after = 0; ;) {
    const page = await records.audited({ judgment, after, limit: MAX_RECORD_LIMIT });
    all.push(...page);
    if (page.length < MAX_RECORD_LIMIT) return all;
    after = page[page.length - 1].id;
  }
}

/**
 * One plan per identity seen in the audits or in the automatic Outcomes of the last TRAFFIC_DAYS days: its audits
 * and errors so far, and its automatic Outcomes per day over that window (or since its first, when later).
 */
async function plannedIdentities(
  records: RecordQueries,
  judgment: string,
  audited: readonly AuditedDecision[],
  options: AuditOptions,
): Promise<Array<{ identity: PlannedIdentity; plan: AuditPlan }>> {
  const now = Date.now();
  const traffic = await records.automaticTraffic(judgment, new Date(now - TRAFFIC_DAYS * 86_400_000));
  const key = (identity: PlannedIdentity) =>
    JSON.stringify([identity.decision, identity.decisionVersion, identity.questions, identity.model]);
  const found = new Map<string, { identity: PlannedIdentity; audits: number; errors: number; perDay: number | null }>();
  for (const audit of audited) {
    if (audit.decision === null || audit.model === null || audit.auditResolution === null) continue;
    const identity = {
      decision: audit.decision,
      decisionVersion: audit.decisionVersion,
      questions: audit.questionsFingerprint,
      model: audit.model,
    };
    const entry = found.get(key(identity)) ?? { identity, audits: 0, errors: 0, perDay: null };
    entry.audits += 1;
    if (audit.auditResolution !== audit.outcome) entry.errors += 1;
    found.set(key(identity), entry);
  }
  for (const row of traffic) {
    const identity = {
      decision: row.decision,
      decisionVersion: row.decisionVersion,
      questions: row.questions,
      model: row.model,
    };
    const entry = found.get(key(identity)) ?? { identity, audits: 0, errors: 0, perDay: null };
    const span = Math.min(TRAFFIC_DAYS, Math.max(1, (now - row.first.getTime()) / 86_400_000));
    entry.perDay = row.count / span;
    found.set(key(identity), entry);
  }
  return [...found.values()].map(({ identity, audits, errors, perDay }) => ({
    identity,
    plan: planAudits({
      maxError: options.maxError as number,
      confidence: options.confidence,
      days: options.days,
      audits,
      errors,
      automaticPerDay: perDay,
    }),
  }));
}

/** A number option: the checks say what range it must be in. */
function number(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) {
    throw new InvalidArgumentError(`expected a number such as 0.01; got ${JSON.stringify(value)}.`);
  }
  return parsed;
}

/** The prediction-powered estimates beside the plain audited error rate, with the estimator and its assumption. */
function formatPredictionPowered(
  agreements: ReadonlyArray<AuditAgreement & { predictionPowered: PoweredEstimate }>,
): string {
  const rows = agreements.map((agreement) => {
    const powered = agreement.predictionPowered;
    const plain =
      agreement.interval === null || agreement.accuracy === null
        ? '—'
        : `${percent(1 - agreement.accuracy)} (${percent(1 - agreement.interval.high)}–${percent(1 - agreement.interval.low)})`;
    return [
      decisionLabel(agreement),
      agreement.model,
      plain,
      powered.estimate === null
        ? powered.reason
        : `${percent(powered.estimate)} (${percent(powered.interval.low)}–${percent(powered.interval.high)}), ` +
          `${powered.audits} audits + ${powered.automatic} automatic`,
    ];
  });
  return [
    table(
      [
        'Decision',
        'Model',
        'Error rate, audits alone (Wilson 95%)',
        `Error rate, prediction-powered (95%, last ${TRAFFIC_DAYS} days)`,
      ],
      rows,
      [null, null, null, 60],
    ),
    `Prediction-powered: ${PPI_METHOD} Each Outcome's predicted error is the largest doubt min(p, 1 − p) among its ` +
      'answers. Assumption: ' +
      PPI_ASSUMPTION,
  ].join('\n');
}
