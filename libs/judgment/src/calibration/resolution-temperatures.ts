import type { DataSource } from 'typeorm';
import { Assessment, type EncodedAnswers } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import { COMPUTE_ONLY, applyDecision } from '../decision/apply-decision';
import { type Decision, decisionMetadata } from '../decision/decision.decorator';
import { type Judgment, type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import { InvalidCalibration } from '../errors';
import { AssessmentRecord } from '../persistence/assessment-record.entity';
import { DEADLINE_RESOLVER } from '../persistence/record.writer';
import { Likelihood } from '../questions/likelihood';
import { type QuestionMap, readQuestions } from '../questions/question';
import { questionsFingerprint } from '../questions/questions-fingerprint';
import type { JudgmentRegistry } from '../registry/judgment.registry';
import { recordSubject } from './case-sources';
import { type TemperatureFit, type TemperatureSample, fitTemperature } from './temperature-fit';

/** How a person's Outcome becomes a Likelihood truth, as printed with the fit. */
export const RESOLUTION_TRUTH_RULE =
  'A person’s Outcome (a resolved Review, or an audit) is read back through the Decision: for each Likelihood whose ' +
  'masses were recorded, the Decision is applied again to the recorded answers with that Likelihood set to 1 and to ' +
  '0; when exactly one of the two gives the person’s Outcome, that is its truth, else the answer is left out.';

/** The identity a temperature is refitted for: resolutions of another identity are never mixed in. */
export interface ResolutionIdentity {
  readonly connection: string;
  readonly model: string;
  readonly questions: string;
  readonly decision: string;
  readonly decisionVersion: string | null;
}

/** A temperature refitted from the resolutions and audits of one identity. */
export interface ResolutionTemperature extends TemperatureFit {
  readonly identity: ResolutionIdentity;
  /** The connection and model, as a TemperatureResult names them. */
  readonly connection: string;
  readonly model: string;
  /** Resolved Reviews and audits read for it, and how many answers of theirs had no readable truth. */
  readonly resolutions: number;
  readonly audits: number;
  readonly undetermined: number;
}

/** What a refit from resolutions found: the fits, and the records it could not use and why. */
export interface ResolutionTemperatures {
  readonly fits: readonly ResolutionTemperature[];
  /** Resolved records left out, by reason (e.g. no recorded masses: the connection's driver records none). */
  readonly skipped: Readonly<Record<string, number>>;
  readonly rule: string;
}

/**
 * The truth of one Likelihood that a person's Outcome `label` gives (RESOLUTION_TRUTH_RULE): the Decision applied to
 * the recorded answers with that Likelihood at 1 and at 0; true or false when exactly one gives `label`, else null
 * (both, neither, or the Decision throws).
 */
export function readBackTruth<J extends Judgment>(
  decision: Decision,
  judgment: J,
  questions: QuestionMap,
  answers: EncodedAnswers,
  question: string,
  label: string,
): boolean | null {
  const outcomeWith = (value: number): string | null => {
    try {
      const assessment = Assessment.fromAnswers(
        judgment,
        questions,
        { ...answers, [question]: value },
        new Provenance('', ''),
        COMPUTE_ONLY,
      );
      return String(applyDecision(assessment, decision, false));
    } catch {
      return null;
    }
  };
  const yes = outcomeWith(1) === label;
  const no = outcomeWith(0) === label;
  return yes === no ? null : yes;
}

/**
 * Refits the temperature of each identity (connection, model, Questions fingerprint, Decision and version) from the
 * Judgment's resolved Reviews and audits: the person's Outcome against the option masses the logprob driver recorded
 * (RESOLUTION_TRUTH_RULE), with the same fit as `fitTemperature` (no Engine call). Records of another identity are
 * fitted apart; those of Questions other than the Judgment's now, or without masses, are counted as skipped.
 */
export async function resolutionTemperatures<J extends Judgment>(
  judgment: JudgmentClass<J>,
  registry: JudgmentRegistry,
  dataSource: DataSource | null,
): Promise<ResolutionTemperatures> {
  const name = judgmentName(judgment);
  if (!dataSource?.hasMetadata(AssessmentRecord)) {
    throw new InvalidCalibration(
      `Refitting a temperature from the resolutions of ${name} reads the judgment_assessments records, but the app ` +
        'has no TypeORM DataSource with the judgmentEntities: enable persistence.',
    );
  }
  // The Questions as declared now: an instance made without its constructor only to read them (a questions() that
  // reads the Subject is refused below; a record of other Questions is skipped by its fingerprint).
  const probe = Object.create(judgment.prototype) as J;
  let questions;
  try {
    questions = readQuestions(name, probe.questions());
  } catch (error) {
    throw new InvalidCalibration(
      `The Questions of ${name} could not be read without a Subject (${(error as Error).message}), so its ` +
        'resolutions cannot be read back: refit from a dataset with truths instead (--dataset).',
      { cause: error },
    );
  }
  const fingerprint = questionsFingerprint(questions);
  const records = await dataSource
    .getRepository(AssessmentRecord)
    .createQueryBuilder('record')
    .where('record.judgment = :name', { name })
    .andWhere(
      '((record.resolved_at IS NOT NULL AND record.resolution IS NOT NULL AND NOT (record.resolver_type = :type ' +
        'AND record.resolver_id = :id)) OR (record.audited_at IS NOT NULL AND record.audit_resolution IS NOT NULL))',
      { type: DEADLINE_RESOLVER.resolverType, id: DEADLINE_RESOLVER.resolverId },
    )
    .orderBy('record.id', 'ASC')
    .getMany();

  const skipped: Record<string, number> = {};
  const skip = (reason: string) => (skipped[reason] = (skipped[reason] ?? 0) + 1);
  const groups = new Map<
    string,
    {
      identity: ResolutionIdentity;
      samples: TemperatureSample[];
      resolutions: number;
      audits: number;
      undetermined: number;
    }
  >();
  for (const record of records) {
    if (record.engine === null || record.model === null || record.answers === null || record.decision === null) {
      skip('no answers or no Decision recorded');
      continue;
    }
    if (record.questionsFingerprint !== fingerprint) {
      skip(`other Questions than ${name}'s now`);
      continue;
    }
    if (!registry.hasDecision(record.decision)) {
      skip(`Decision ${record.decision} not registered`);
      continue;
    }
    const masses = (record.provenanceDetails?.masses ?? null) as Record<string, unknown> | null;
    if (masses === null) {
      skip('no option masses recorded (a driver without logprobs)');
      continue;
    }
    // The Decision may read the Subject (as decide() does live): the Judgment is made from it when the record has one.
    let target: J = probe;
    if (record.subjectType !== null && record.subjectId !== null) {
      const subject = await recordSubject(dataSource, record);
      if (subject === null) {
        skip('Subject no longer exists');
        continue;
      }
      target = new (judgment as unknown as new (subject: object) => J)(subject);
    }
    const audit = record.auditedAt !== null && record.auditResolution !== null;
    const label = audit ? (record.auditResolution as string) : (record.resolution as string);
    const cls = registry.decision(record.decision);
    const metadata = decisionMetadata(cls);
    const decision = new (cls as new () => Decision)();
    const identity: ResolutionIdentity = {
      connection: record.engine,
      model: record.model,
      questions: record.questionsFingerprint,
      decision: metadata.name,
      decisionVersion: record.decisionVersion,
    };
    const key = JSON.stringify(identity);
    const group = groups.get(key) ?? { identity, samples: [], resolutions: 0, audits: 0, undetermined: 0 };
    groups.set(key, group);
    if (audit) group.audits += 1;
    else group.resolutions += 1;
    for (const [question, declared] of Object.entries(questions)) {
      const pair = masses[question];
      if (!(declared instanceof Likelihood) || !Array.isArray(pair) || pair.length !== 2) continue;
      if (!pair.every((mass) => typeof mass === 'number')) continue;
      const truth = readBackTruth(decision, target, questions, record.answers as EncodedAnswers, question, label);
      if (truth === null) {
        group.undetermined += 1;
        continue;
      }
      group.samples.push({ yes: pair[0] as number, no: pair[1] as number, truth });
    }
  }
  const fits = [...groups.values()].flatMap(({ identity, samples, resolutions, audits, undetermined }) => {
    const fit = fitTemperature(samples);
    return fit === null
      ? []
      : [
          {
            ...fit,
            identity,
            connection: identity.connection,
            model: identity.model,
            resolutions,
            audits,
            undetermined,
          },
        ];
  });
  return { fits, skipped, rule: RESOLUTION_TRUTH_RULE };
}
