import { Injectable, type Type } from '@nestjs/common';
import { decisionMetadata, isDecision } from '../decision/decision.decorator';
import { decisionThresholds } from '../decision/thresholds';
import { evidenceShape } from '../definition/evidence-paths';
import { type Judgment, judgmentMetadata } from '../definition/judgment.decorator';
import { judgmentWithoutSubject } from '../definition/without-subject';
import { EngineManager } from '../engines/engine.manager';
import { type CheckFinding, type CheckReport, JudgmentError } from '../errors';
import { AnswerSource } from '../judge/answer-source';
import { expandQuestions, readQuestions, type Question } from '../questions/question';
import { ReviewVotes, VOTES_TABLE } from '../review/review-votes.service';
import { RecordWriter } from '../persistence/record.writer';
import { TEXT_COLUMN_LENGTH, unstorableText } from '../persistence/storable-text';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { QUESTION_RULES, type ReadJudgment } from './question.rules';

/**
 * The rules of `judgment check`, run at startup too: failures (what would fail when asked or decided: declaration
 * limits, Decisions, connections, default Decisions) and warnings (Questions that run but mislead). No network, no
 * Engine round; every registered Judgment and Decision is read, and every finding is collected.
 */
@Injectable()
export class JudgmentChecks {
  constructor(
    private readonly registry: JudgmentRegistry,
    private readonly engines: EngineManager,
    private readonly answers: AnswerSource,
    private readonly rows: RecordWriter,
    private readonly votes: ReviewVotes,
  ) {}

  /** Checks every registered Judgment and Decision. */
  run(): CheckReport {
    return this.report([]);
  }

  /**
   * `run()`, and, with persistence on, the database: the records' tables and columns must exist (one catalog query).
   * What startup and `judgment check` run.
   */
  async runWithDatabase(): Promise<CheckReport> {
    return this.report(this.rows.persistence.enabled ? await this.checkSchema() : []);
  }

  private report(findings: CheckFinding[]): CheckReport {
    const judgments = this.registry.judgments();
    const decisions = this.registry.decisions();
    for (const cls of judgments) findings.push(...this.checkJudgment(cls));
    for (const cls of decisions) findings.push(...this.checkDecision(cls));
    findings.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'failure' ? -1 : 1));
    const failures = findings.filter((finding) => finding.severity === 'failure').length;
    return {
      judgments: judgments.map((cls) => judgmentMetadata(cls).name),
      decisions: decisions.map((cls) => decisionMetadata(cls).name),
      failures,
      warnings: findings.length - failures,
      findings,
    };
  }

  /** The records' tables and columns, as the package's migrations create them. */
  private async checkSchema(): Promise<CheckFinding[]> {
    const finding = (problem: string): CheckFinding => ({
      severity: 'failure',
      rule: 'schema',
      judgment: null,
      decision: null,
      key: null,
      problem,
      fix:
        "Run the package's migrations before the app starts: list judgmentMigrations in the DataSource's migrations " +
        'and run them (migrationsRun: true, or `typeorm migration:run` in the deploy step).',
    });
    let missing;
    try {
      missing = await this.rows.missingSchema();
    } catch (error) {
      // No DataSource, or one without the entity, is a configuration error of its own (startup says which).
      if (error instanceof JudgmentError) throw error;
      return [finding(`The records' tables could not be read from the database: ${(error as Error).message}`)];
    }
    const findings = missing.map(({ table, entity, tableMissing, columns }) =>
      finding(
        tableMissing
          ? `The database has no table ${table} (the ${entity} records), so no attempt could be recorded.`
          : `The table ${table} has no column ${columns.join(', ')}, so no attempt could be recorded.`,
      ),
    );
    return [...findings, ...(await this.checkVotesTable(finding))];
  }

  /** The N-of-M votes' table, when a registered Decision requires several reviewers (`review: { reviewers }`). */
  private async checkVotesTable(finding: (problem: string) => CheckFinding): Promise<CheckFinding[]> {
    const several = this.registry
      .decisions()
      .map((cls) => decisionMetadata(cls))
      .filter((metadata) => metadata.reviewers > 1);
    if (several.length === 0) return [];
    let missing: boolean;
    try {
      missing = await this.votes.tableMissing();
    } catch (error) {
      return [finding(`The table ${VOTES_TABLE} could not be read from the database: ${(error as Error).message}`)];
    }
    if (!missing) return [];
    const names = several.map((metadata) => `${metadata.name} (review.reviewers ${metadata.reviewers})`).join(', ');
    return [
      finding(
        `The database has no table ${VOTES_TABLE}, which ${names} needs for its reviewers' votes, so no vote could ` +
          'be cast (migration ReviewVotes1765530000000).',
      ),
    ];
  }

  /**
   * The expanded Questions of every registered Judgment whose Questions can be read, by the connection it is asked on
   * (`@Judgment({ engine })`, else the default), named `judgment.key`: what `judgment probe` checks a connection for.
   */
  questionsByConnection(): Map<string, Array<{ name: string; question: Question }>> {
    const byConnection = new Map<string, Array<{ name: string; question: Question }>>();
    for (const cls of this.registry.judgments()) {
      const { name, engine } = judgmentMetadata(cls);
      let expanded: Map<string, Question>;
      try {
        expanded = expandQuestions(name, readQuestions(name, judgmentWithoutSubject(cls).questions()));
      } catch {
        continue; // run() reports it.
      }
      const connection = engine ?? this.engines.defaultConnectionName();
      const listed = byConnection.get(connection) ?? [];
      for (const [key, question] of expanded) listed.push({ name: `${name}.${key}`, question });
      byConnection.set(connection, listed);
    }
    return byConnection;
  }

  private checkJudgment(cls: Type<Judgment>): CheckFinding[] {
    const name = judgmentMetadata(cls).name;
    const findings = this.checkDefaultDecision(cls, name);
    const instance = judgmentWithoutSubject(cls);
    let read: ReadJudgment;
    try {
      const questions = readQuestions(name, instance.questions());
      read = { name, questions, expanded: expandQuestions(name, questions), shape: evidenceShape(instance) };
    } catch (error) {
      const declared = error instanceof JudgmentError;
      findings.push({
        severity: declared ? 'failure' : 'warning',
        rule: declared ? 'questions' : 'unreadable-questions',
        judgment: name,
        decision: null,
        key: null,
        problem: declared
          ? (error as Error).message
          : `questions() could not be read without a Subject (${String((error as Error)?.message ?? error)}), so ` +
            'its Questions were not checked.',
        fix: declared
          ? 'Fix the declaration in questions(); the message says what the package accepts.'
          : 'Declare the same Questions for every Subject (move what depends on the Subject into evidence()).',
      });
      return findings;
    }
    findings.push(...this.checkConnection(cls, read));
    for (const rule of QUESTION_RULES) findings.push(...rule(read));
    return findings;
  }

  /** The default Decision must be a @Decision() class: the queue's decide job (and outcome()) decide with it. */
  private checkDefaultDecision(cls: Type<Judgment>, name: string): CheckFinding[] {
    let decision: Function | null;
    try {
      decision = judgmentMetadata(cls).decision;
    } catch (error) {
      return [defaultDecisionFailure(name, `its decision thunk throws (${(error as Error)?.message ?? error}).`)];
    }
    if (decision === null || isDecision(decision)) return [];
    const named = typeof decision === 'function' && decision.name ? decision.name : String(decision);
    return [defaultDecisionFailure(name, `it names ${named}, which is not declared with @Decision().`)];
  }

  /** What the Judgment's connection cannot ask, as its driver says (no network). */
  private checkConnection(cls: Type<Judgment>, read: ReadJudgment): CheckFinding[] {
    const failure = (problem: string, fix: string): CheckFinding => ({
      severity: 'failure',
      rule: 'connection',
      judgment: read.name,
      decision: null,
      key: null,
      problem,
      fix,
    });
    const { cascade } = judgmentMetadata(cls);
    // Every tier of a cascade is asked the same Questions: each connection must be able to answer them.
    if (cascade) return cascade.flatMap((tier) => this.checkOneConnection(cls, read, failure, tier.connection));
    return this.checkOneConnection(cls, read, failure, null);
  }

  private checkOneConnection(
    cls: Type<Judgment>,
    read: ReadJudgment,
    failure: (problem: string, fix: string) => CheckFinding,
    tier: string | null,
  ): CheckFinding[] {
    let connection = '(default)';
    try {
      connection = tier ?? judgmentMetadata(cls).engine ?? this.engines.defaultConnectionName();
      return this.answers
        .refusals(connection, read.expanded)
        .map((refusal) => failure(refusal, `Ask ${read.name} on a connection that can, or change the Questions.`));
    } catch (error) {
      return [
        failure(
          `The Engine connection "${connection}" it is asked on cannot be built: ${(error as Error).message}`,
          tier === null
            ? 'Configure the connection, or name another one in @Judgment({ engine }).'
            : 'Configure the connection, or name another one in the tier of @Judgment({ cascade }).',
        ),
      ];
    }
  }

  /** A registered Decision must be usable: a decide() method and well-formed thresholds. */
  private checkDecision(cls: Type<unknown>): CheckFinding[] {
    const metadata = decisionMetadata(cls);
    const name = metadata.name;
    const failure = (problem: string, fix: string, rule = 'decision'): CheckFinding => ({
      severity: 'failure',
      rule,
      judgment: null,
      decision: name,
      key: null,
      problem,
      fix,
    });
    // What a decision writes to the record, checked now: a decision that cannot be recorded is found out after the
    // Engine was paid for the answers it decides.
    const written: Array<[string, string | null]> = [
      ['name', name],
      ['version', metadata.version],
      ['outcomeType', metadata.outcomeType],
      ...metadata.outcomes.map((outcome): [string, string] => [`Outcome ${JSON.stringify(outcome)}`, String(outcome)]),
    ];
    const unrecordable = written.flatMap(([what, value]) => {
      const problem = value === null ? null : unstorableText(value);
      if (problem === null) return [];
      return [
        failure(
          `${name}'s ${what} ${problem}; the record holds ${TEXT_COLUMN_LENGTH} characters of text there, so no decision of it could be recorded.`,
          'Shorten it (or name the Decision with @Decision({ name }), its Outcome enum with outcomeType).',
          'record-columns',
        ),
      ];
    });
    if (unrecordable.length > 0) return unrecordable;
    try {
      const decision = this.registry.decisionOf(cls as never) as object;
      if (typeof (decision as { decide?: unknown }).decide !== 'function') {
        return [failure(`${name} has no decide() method.`, 'Add decide(assessment, judgment) returning an Outcome.')];
      }
      decisionThresholds(decision);
      return [];
    } catch (error) {
      return [
        failure(
          (error as Error).message,
          'Declare thresholds as a plain object of finite numbers read by decide(), e.g. { reject: 0.65 }.',
        ),
      ];
    }
  }
}

/**
 * A Judgment to read the Questions of, without a Subject: constructed with no arguments (so the defaults of its
 * constructor and fields apply), or, when its constructor needs them, not constructed at all. Its Questions must not
 * depend on the Subject; what does is reported as `unreadable-questions`.
 */
function defaultDecisionFailure(judgment: string, why: string): CheckFinding {
  return {
    severity: 'failure',
    rule: 'default-decision',
    judgment,
    decision: null,
    key: null,
    problem: `The default Decision of ${judgment} cannot be used: ${why} outcome() and the queue's decide job would fail.`,
    fix: 'Set @Judgment({ decision: () => YourDecision }) to a class declared with @Decision({ outcomes }).',
  };
}
