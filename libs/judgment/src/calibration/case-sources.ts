import 'reflect-metadata';
import type { Type } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import { type DataSource, type EntityMetadata, IsNull, Not } from 'typeorm';
import { type EvidenceMap, UntrustedText } from '../definition/evidence';
import { type Judgment, type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import { InvalidCalibration, JudgmentError } from '../errors';
import { AssessmentRecord } from '../persistence/assessment-record.entity';
import { findByKey } from '../persistence/entity-reference';
import { LabelledCase } from './labelled-case';

/** Cases read from a source, and the Resolutions skipped for lack of a Subject. */
export interface LoadedCases<J extends Judgment> {
  readonly cases: LabelledCase<J>[];
  readonly skipped: number;
}

/**
 * Reads a labelled dataset: a JSON list of `{ subject: { ...attributes } | primaryKey, expected: 'approve',
 * truth?: { abusive: true } }`. Attributes fill a new unsaved entity of the Subject class; a key loads the entity.
 */
export async function datasetCases<J extends Judgment>(
  path: string,
  judgment: JudgmentClass<J>,
  subjectClass: Type<object> | null,
  dataSource: DataSource | null,
): Promise<LoadedCases<J>> {
  const entries = await readDataset(path);
  const metadata = subjectMetadata(judgment, subjectClass, dataSource);
  const repository = (dataSource as DataSource).getRepository(metadata.target);
  const cases: LabelledCase<J>[] = [];
  for (const [index, entry] of entries.entries()) {
    const at = `The case at index ${index} of the dataset ${path}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new InvalidCalibration(`${at} is not a { subject, expected } object.`);
    }
    const { subject, expected, truth } = entry as Record<string, unknown>;
    if (typeof expected !== 'string' && typeof expected !== 'number') {
      throw new InvalidCalibration(`${at} names no expected Outcome: give "expected": "<an Outcome value>".`);
    }
    let entity: object | null;
    if (subject !== null && typeof subject === 'object' && !Array.isArray(subject)) {
      checkSubjectFields(at, metadata, subject as Record<string, unknown>);
      entity = Object.assign(repository.create(), subject);
    } else if (typeof subject === 'string' || typeof subject === 'number') {
      entity = await findByKey(dataSource as DataSource, metadata, subject);
      if (!entity) {
        throw new InvalidCalibration(`${at} names the Subject ${metadata.name} ${subject}, which does not exist.`);
      }
    } else {
      throw new InvalidCalibration(
        `${at} names no Subject: give "subject": { ...attributes of ${metadata.name} } or the primary key of a ` +
          `saved ${metadata.name}.`,
      );
    }
    try {
      const made = new (judgment as new (subject: object) => J)(entity);
      cases.push(LabelledCase.of(made, expected, { truth: readTruth(at, truth) }));
    } catch (error) {
      // The Judgment's own errors (Evidence it cannot build from this Subject) say which case they came from, and
      // which of the Subject's fields the case left out (the likeliest reason).
      if (!(error instanceof JudgmentError) || error instanceof InvalidCalibration) throw error;
      const missing = subject !== null && typeof subject === 'object' ? leftOut(metadata, subject) : [];
      const hint =
        missing.length === 0
          ? ''
          : ` The case gives no ${missing.length === 1 ? 'value for the field' : 'values for the fields'} ` +
            `${missing.map((field) => JSON.stringify(field)).join(', ')} of the Subject ${metadata.name}: add ` +
            `${missing.length === 1 ? 'it' : 'them'} to the case's "subject".`;
      throw new InvalidCalibration(`${at}: ${error.message}${hint}`, { cause: error });
    }
  }
  return { cases, skipped: 0 };
}

/** Refuses an attribute the Subject entity does not have (a misspelled field), naming it and the closest one. */
function checkSubjectFields(at: string, metadata: EntityMetadata, subject: Record<string, unknown>): void {
  const fields = [
    ...metadata.columns.map((column) => column.propertyPath),
    ...metadata.relations.map((relation) => relation.propertyPath),
  ];
  for (const field of Object.keys(subject)) {
    if (fields.includes(field)) continue;
    const closest = closestName(field, fields);
    throw new InvalidCalibration(
      `${at} gives the Subject ${metadata.name} the field ${JSON.stringify(field)}, which it does not have` +
        `${closest ? ` (did you mean ${JSON.stringify(closest)}?)` : ''}. Its fields: ${fields.join(', ')}.`,
    );
  }
}

/** The Subject's columns a case's attributes leave out, but those that may be left out (generated, nullable, defaulted). */
function leftOut(metadata: EntityMetadata, subject: object): string[] {
  return metadata.columns
    .filter((column) => !column.isGenerated && !column.isNullable && column.default === undefined)
    .filter((column) => !column.isCreateDate && !column.isUpdateDate && !column.isVersion)
    .map((column) => column.propertyPath)
    .filter((field) => !Object.hasOwn(subject, field));
}

/** The name within two edits of `name` (the fewest first), or null. */
function closestName(name: string, names: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const candidate of names) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && (best === null || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name ?? null;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The resolved records of a Judgment as cases, latest Resolution first, one per Evidence fingerprint. A record
 * without a Subject (deleted, or never had one) is skipped and counted, and does not claim its fingerprint. Stored
 * Evidence is asked again with its untrusted paths marked untrusted; without it, the Subject's current Evidence.
 */
export async function resolutionCases<J extends Judgment>(
  judgment: JudgmentClass<J>,
  dataSource: DataSource | null,
): Promise<LoadedCases<J>> {
  const name = judgmentName(judgment);
  if (!dataSource) {
    throw new InvalidCalibration(
      `Calibrating ${name} from Resolutions reads the judgment_assessments records, but the app has no TypeORM ` +
        'DataSource for them. Calibrate from a labelled dataset (fromDataset) or in-memory cases (cases) instead.',
    );
  }
  const records = await dataSource.getRepository(AssessmentRecord).find({
    where: { judgment: name, resolvedAt: Not(IsNull()) },
    order: { resolvedAt: 'DESC', id: 'DESC' },
  });
  const seen = new Set<string>();
  const cases: LabelledCase<J>[] = [];
  let skipped = 0;
  for (const record of records) {
    const subject = record.resolution === null ? null : await recordSubject(dataSource, record);
    if (subject === null) {
      skipped += 1;
      continue;
    }
    if (seen.has(record.evidenceFingerprint)) continue;
    seen.add(record.evidenceFingerprint);
    const made = new (judgment as new (subject: object) => J)(subject);
    cases.push(
      record.evidence === null
        ? LabelledCase.of(made, record.resolution as string)
        : LabelledCase.over(
            made,
            markUntrusted(record.evidence, record.untrustedPaths),
            record.resolution as string,
            record.language,
          ),
    );
  }
  return { cases, skipped };
}

/** Stored Evidence (plain JSON) with the text at each untrusted path wrapped again as UntrustedText. */
export function markUntrusted(evidence: Record<string, unknown>, paths: readonly string[]): EvidenceMap {
  let marked: unknown = structuredClone(evidence);
  for (const path of paths) marked = wrapAt(marked, path);
  return marked as EvidenceMap;
}

function wrapAt(node: unknown, path: string): unknown {
  if (path === '') return typeof node === 'string' ? new UntrustedText(node) : node;
  if (node === null || typeof node !== 'object' || node instanceof UntrustedText) return node;
  const container = node as Record<string, unknown>;
  // Keys may themselves contain dots: the longest key that prefixes the path wins.
  const key = Object.keys(container)
    .filter((candidate) => path === candidate || path.startsWith(`${candidate}.`))
    .sort((a, b) => b.length - a.length)[0];
  if (key !== undefined) container[key] = wrapAt(container[key], path.slice(key.length + 1));
  return container;
}

async function readDataset(path: string): Promise<unknown[]> {
  let entries: unknown;
  try {
    entries = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InvalidCalibration(
      `The dataset ${path} is not a readable JSON list of labelled cases: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (!Array.isArray(entries)) {
    throw new InvalidCalibration(
      `The dataset ${path} is not a readable JSON list of labelled cases: it holds ${typeof entries === 'object' && entries !== null ? 'an object' : typeof entries}, not a list.`,
    );
  }
  return entries;
}

/** The Subject entity class: the explicit one, else the type of the Judgment constructor's first parameter. */
function subjectMetadata(
  judgment: JudgmentClass,
  subjectClass: Type<object> | null,
  dataSource: DataSource | null,
): EntityMetadata {
  const declared = (Reflect.getMetadata('design:paramtypes', judgment) as unknown[] | undefined)?.[0];
  const cls = subjectClass ?? (typeof declared === 'function' ? declared : null);
  if (cls && dataSource?.hasMetadata(cls)) return dataSource.getMetadata(cls);
  const name = judgment.name;
  const reason = !dataSource
    ? 'the app has no TypeORM DataSource to build them with'
    : cls && cls !== Object
      ? `${cls.name} is not an entity of the app's DataSource`
      : `${name} is not constructed with an entity (its first constructor parameter has no entity type)`;
  throw new InvalidCalibration(
    `A dataset builds TypeORM Subjects, but ${reason}. Type the first constructor parameter of ${name} with the ` +
      `entity class (constructor(readonly refund: Refund)), or name it: calibration.for(${name}).subject(Refund).`,
  );
}

/** The Subject a record points at, or null when it has none or it no longer exists. */
/** The Subject a record was made for, loaded by its subject_type and subject_id; null when none or gone. */
export async function recordSubject(dataSource: DataSource, record: AssessmentRecord): Promise<object | null> {
  if (record.subjectType === null || record.subjectId === null) return null;
  const metadata = dataSource.entityMetadatas.find((entity) => entity.name === record.subjectType);
  return metadata ? findByKey(dataSource, metadata, record.subjectId) : null;
}

/** A dataset case's truth: `{ key: boolean }`, nested objects read as Likelihood Set labels (`set.label`). */
function readTruth(at: string, truth: unknown): Record<string, boolean> {
  if (truth === undefined || truth === null) return {};
  const flat: Record<string, boolean> = {};
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'boolean' && path !== '') {
      flat[path] = value;
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, item] of Object.entries(value)) visit(item, path === '' ? key : `${path}.${key}`);
    } else {
      throw new InvalidCalibration(
        `${at} gives a truth${path ? ` for "${path}"` : ''} that is not true or false: write "truth": { "abusive": true }.`,
      );
    }
  };
  visit(truth, '');
  return flat;
}
