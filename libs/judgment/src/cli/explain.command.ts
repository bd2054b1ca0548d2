import type { Command } from 'commander';
import type { ReviewCause } from '../assessment/awaiting-review';
import { shownNumber, traceLines } from '../decision/trace-words';
import { cascadeStepOf } from '../definition/cascade';
import { InvalidRecordQuery } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { RecordQueries } from '../records/record-queries.service';
import { type RecordDetail, recordDetail } from '../records/record.view';
import type { CliContext } from './cli.context';
import { CliUsageError } from './cli.errors';
import { fail, print, printJson } from './cli.output';

/**
 * `judgment explain <recordId> [--json]`: one record in words — who and what was assessed, by which Engine and model,
 * the answers, the Decision's rule that fired with each threshold compared and its margin, and the Review history.
 * Exit 1 when no record has that id, 2 when the id is not a positive integer.
 */
export function addExplainCommand(program: Command, context: CliContext): void {
  program
    .command('explain')
    .description('Explain how a recorded Outcome was reached: answers, rule, thresholds, Review')
    .argument('<recordId>', 'the id of a judgment_assessments record')
    .option('--json', 'print only JSON')
    .action((id: string, options: { json?: boolean }) => runExplain(context, id, options.json === true));
}

async function runExplain(context: CliContext, id: string, json: boolean): Promise<void> {
  try {
    if (!/^[1-9]\d*$/.test(id)) throw new CliUsageError(`The record id must be a positive integer; got "${id}".`);
    await context.start();
    const queries = context.get(RecordQueries);
    const record = await queries.find(Number(id));
    if (record === null) throw new InvalidRecordQuery(`No assessment record has id ${id}.`);
    const detail = recordDetail(record);
    const path = (await queries.cascadePath(record)).map(cascadeStop);
    if (json) printJson(path.length > 1 ? { ...detail, cascade: path } : detail);
    else print(formatExplanation(detail, path));
  } catch (error) {
    fail(error, json);
  }
}

/** One record of a cascade's path, as explain shows it. */
export interface CascadeStop {
  readonly record: number;
  readonly tier: number | null;
  readonly connection: string | null;
  readonly model: string | null;
  /** The Outcome its answers were decided to (null: not decided, or Unassessed). */
  readonly outcome: string | null;
  /** What happened there: `escalated` (in the Review band, the next tier asked), `decided`, `review`, `unassessed`, `undecided`. */
  readonly result: 'escalated' | 'decided' | 'review' | 'unassessed' | 'undecided';
}

/** A record of a cascade's path: its tier, and whether it escalated, decided, went to Review or was not answered. */
export function cascadeStop(record: AssessmentRecord): CascadeStop {
  const step = cascadeStepOf(record);
  const result: CascadeStop['result'] =
    record.failureType !== null
      ? 'unassessed'
      : record.outcome === null
        ? 'undecided'
        : record.decisionTrace?.escalated
          ? 'escalated'
          : record.reviewRequestedAt !== null
            ? 'review'
            : 'decided';
  return {
    record: record.id,
    tier: step?.tier ?? null,
    connection: step?.connection ?? null,
    model: record.model,
    outcome: record.outcome,
    result,
  };
}

/** The path of a cascade in words, one tier a line, the record explained marked. */
export function describeCascadePath(path: readonly CascadeStop[], explained: number): string[] {
  if (path.length < 2 && (path.length === 0 || path[0].tier === null)) return [];
  const words: Record<CascadeStop['result'], (stop: CascadeStop) => string> = {
    escalated: (stop) => `answered, decided ${stop.outcome} (in the Review band), escalated`,
    decided: (stop) => `answered, decided ${stop.outcome}`,
    review: (stop) => `answered, decided ${stop.outcome}, sent to Review`,
    unassessed: () => 'could not answer (Unassessed)',
    undecided: () => 'answered, not decided yet',
  };
  return [
    'Escalation path:',
    ...path.map(
      (stop) =>
        `  tier ${stop.tier ?? '?'} (${stop.connection ?? 'unknown connection'}${stop.model ? `, ${stop.model}` : ''}), ` +
        `record #${stop.record}: ${words[stop.result](stop)}${stop.record === explained ? '  ← this record' : ''}`,
    ),
  ];
}

/** The explanation in words, one fact a line. */
export function formatExplanation(e: RecordDetail, path: readonly CascadeStop[] = []): string {
  const lines = [
    `Record #${e.id}: ${e.judgment}${e.subject ? ` about ${e.subject.type} #${e.subject.id}` : ''}, created ${e.createdAt}`,
    e.provenance === null
      ? 'Engine: none answered'
      : `Engine: ${e.provenance.engine}${e.provenance.model ? `, model ${e.provenance.model}` : ''}` +
        (e.provenance.requestId ? `, request ${e.provenance.requestId}` : ''),
    ...describeModels(e.provenance?.questionModels ?? {}),
    describeCost(e.cost),
    ...describeCascadePath(path, e.id),
  ];
  if (e.failure) {
    lines.push(`Unassessed: ${e.failure.type}${e.failure.message ? ` — ${e.failure.message}` : ''}`);
    return lines.join('\n');
  }
  lines.push(
    'Answers:',
    ...Object.entries(e.answers ?? {}).map(([key, value]) => `  ${key}: ${describeAnswer(value)}`),
  );
  if (e.decision === null) {
    lines.push('Decision: none recorded yet (the Assessment was not decided).');
  } else {
    const version = e.decision.version ? ` v${e.decision.version}` : '';
    lines.push(`Decision: ${e.decision.name}${version} decided ${e.outcome}`);
    lines.push(...traceLines(e.trace));
    if (e.trace?.escalated) {
      const { tier, connection } = e.trace.escalated;
      lines.push(
        `Escalated: ${e.outcome} is a Review Outcome, so tier ${tier} (${connection}) was asked instead of Review.`,
      );
    }
  }
  lines.push(...describeReview(e.review));
  return lines.join('\n');
}

/** The record's cost, and what it was reached from (or why there is none). */
function describeCost(cost: RecordDetail['cost']): string {
  if (cost === null) return 'Cost: not recorded (the record was written before costs were kept).';
  const { amount, currency, basis } = cost;
  if (amount === null) return `Cost: unknown — ${basis.note ?? 'no figure was recorded.'}`;
  const price = basis.price;
  const terms: string[] = [];
  const plural = (count: number | null, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  if (price?.inputPerMillion) terms.push(`${plural(basis.inputTokens, 'input token')} at ${price.inputPerMillion}/1M`);
  if (price?.outputPerMillion) {
    terms.push(`${plural(basis.outputTokens, 'output token')} at ${price.outputPerMillion}/1M`);
  }
  if (price?.perRequest) terms.push(`${plural(basis.requests, 'request')} at ${price.perRequest} each`);
  const from = terms.length > 0 ? ` (${terms.join(' + ')})` : '';
  return `Cost: ${amount} ${currency}${from}${basis.note ? `; ${basis.note}` : ''}`;
}

/** The model of each Question, when they were not all answered by one. */
function describeModels(models: Record<string, string>): string[] {
  if (new Set(Object.values(models)).size < 2) return [];
  return ['Models by Question:', ...Object.entries(models).map(([key, model]) => `  ${key}: ${model}`)];
}

function describeReview(review: RecordDetail['review']): string[] {
  if (review === null) return ['Review: not requested.'];
  const lines = [`Review: requested ${review.requestedAt} (${REVIEW_CAUSE_WORDS[review.cause]})`];
  if (review.reason !== '') lines.push(`Why: ${review.reason}`);
  if (review.resolvedAt === null) lines.push('Resolution: awaiting a reviewer.');
  else {
    const by = review.resolver ? ` by ${review.resolver.type} ${review.resolver.id}` : '';
    const spent = review.timeSpentSeconds === null ? '' : ` after ${review.timeSpentSeconds} s on the case`;
    lines.push(`Resolution: ${review.resolution}${by} at ${review.resolvedAt}${spent}`);
  }
  return lines;
}

const REVIEW_CAUSE_WORDS: Record<ReviewCause, string> = {
  band: 'a Review Outcome',
  drift: 'calibration drift',
  collapse: 'signal collapse',
};

function describeAnswer(value: unknown): string {
  if (typeof value === 'number') return `probability ${shownNumber(value)}`;
  if (Array.isArray(value)) return `probability per level (lowest first) ${value.map(shownNumber).join(', ')}`;
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .map(([label, p]) => `${label} ${shownNumber(p)}`)
      .join(', ');
  }
  return JSON.stringify(value);
}
