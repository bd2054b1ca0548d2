import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InvalidCalibrationLock } from '../errors';
import type { SignalFigures } from './signal-figures';

/** What marks a file as a nestjs-judgment calibration lock. */
export const LOCK_KIND = 'nestjs-judgment calibration lock';
/** The format version this package reads and writes. */
export const LOCK_FORMAT = 1;

/** A share's 95 % interval, as locked. */
export interface LockedInterval {
  readonly low: number;
  readonly high: number;
}

/** What one calibration measured for a Decision under one identity (Questions × model × language). */
export interface LockedIdentity {
  /** The full fingerprint of the Questions asked. */
  readonly questions: string;
  /** The versioned model the Engine reported. */
  readonly model: string;
  /** The connection asked (its name), or null when unknown. */
  readonly connection: string | null;
  /** The driver of that connection (`jev`, `mock`, a class name), or null when unknown. */
  readonly driver: string | null;
  readonly language: string | null;
  /** Cases measured (assessed and unassessed). */
  readonly cases: number;
  readonly accuracy: number | null;
  readonly accuracyInterval: LockedInterval | null;
  readonly reviewRate: number | null;
  readonly reviewRateInterval: LockedInterval | null;
  /** Brier score per Likelihood (cases with a truth only). */
  readonly brier: Readonly<Record<string, number | null>>;
  /** Expected calibration error per Likelihood. */
  readonly expectedCalibrationError: Readonly<Record<string, number | null>>;
  /** SHA-256 of the labelled cases (the dataset file, or the Resolutions read), or null. */
  readonly dataset: string | null;
  /**
   * How much signal the calibration run's answers carried (near-certain share, mean entropy), which the
   * signal-collapse guard compares live answers with; null or absent in locks written before it.
   */
  readonly signal?: SignalFigures | null;
  /** When the calibration ran (ISO 8601). */
  readonly calibratedAt: string;
}

/** One tier of an escalation cascade as calibrated: the connection asked, its driver and model, its thresholds. */
export interface LockedTier {
  /** 1 for the first tier. */
  readonly tier: number;
  readonly connection: string;
  /** The connection's driver (`jev`, `openai`, a class name), or null when unknown. */
  readonly driver: string | null;
  /** The versioned model the tier's Engine reported. */
  readonly model: string;
  /** The thresholds the tier decided with (the Decision's, with the tier's own in their place). */
  readonly thresholds: Readonly<Record<string, number>> | null;
}

/** One Decision × version of one Judgment, as calibrated. */
export interface LockedDecision {
  readonly decision: string;
  readonly version: string | null;
  /** The thresholds the Decision declared when it was calibrated (null when it declares none). */
  readonly thresholds: Readonly<Record<string, number>> | null;
  readonly identities: readonly LockedIdentity[];
  /**
   * The Judgment's escalation cascade as calibrated, tier by tier (the drift guard checks each tier's answers against
   * its own); absent or null without a cascade, and in locks written before cascades.
   */
  readonly cascade?: readonly LockedTier[] | null;
}

/** The key of a Decision × version in a Judgment's entries: `RefundDecision@3` (`RefundDecision` without version). */
export function lockKey(decision: string, version: string | null): string {
  return version === null ? decision : `${decision}@${version}`;
}

/**
 * A calibration lock (e.g. `judgment.lock.json`, committed with the app): per Judgment × Decision × version, the
 * identity it was calibrated under and what was measured. Immutable; `with()` returns an updated lock.
 */
export class CalibrationLock {
  private constructor(
    /** Where the lock was read from or will be written to. */
    readonly file: string,
    private readonly judgments: Readonly<Record<string, Readonly<Record<string, LockedDecision>>>>,
  ) {
    Object.freeze(this);
  }

  /** An empty lock to be written at `file`. */
  static empty(file: string): CalibrationLock {
    return new CalibrationLock(file, dictionary({}));
  }

  /** Reads a lock, or InvalidCalibrationLock naming the file and field when it is missing, corrupt or not ours. */
  static read(file: string): CalibrationLock {
    if (!existsSync(file)) {
      throw new InvalidCalibrationLock(
        file,
        null,
        'does not exist: write one with `judgment eval <judgment> --dataset=<cases.json> --lock`.',
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new InvalidCalibrationLock(
        file,
        null,
        `is not valid JSON (${(error as Error).message}): restore it from version control or write it again with ` +
          '`judgment eval --lock`.',
        { cause: error },
      );
    }
    return new CalibrationLock(file, parseLock(file, parsed));
  }

  /** Reads the lock at `file` when it exists, else an empty one to be written there. */
  static readOrEmpty(file: string): CalibrationLock {
    return existsSync(file) ? CalibrationLock.read(file) : CalibrationLock.empty(file);
  }

  /** The Judgments the lock has entries for. */
  judgmentNames(): string[] {
    return Object.keys(this.judgments).sort();
  }

  /** The entries of one Judgment (by `lockKey`). */
  entries(judgment: string): readonly LockedDecision[] {
    return Object.values(this.judgments[judgment] ?? {});
  }

  /** The entry of a Judgment's Decision at a version, or null. */
  entry(judgment: string, decision: string, version: string | null): LockedDecision | null {
    return this.judgments[judgment]?.[lockKey(decision, version)] ?? null;
  }

  /** A lock with the Judgment's entry for `entry.decision@entry.version` replaced (or added). */
  with(judgment: string, entry: LockedDecision): CalibrationLock {
    const entries = dictionary(this.judgments[judgment] ?? {}, { [lockKey(entry.decision, entry.version)]: entry });
    return new CalibrationLock(this.file, dictionary(this.judgments, { [judgment]: entries }));
  }

  /** The lock as JSON with every object's keys sorted, so that a diff shows only what changed. */
  toJSON(): Record<string, unknown> {
    return sortKeys({ kind: LOCK_KIND, format: LOCK_FORMAT, judgments: this.judgments }) as Record<string, unknown>;
  }

  /** The file's text: sorted keys, two-space indent, a final newline. */
  serialize(): string {
    return `${JSON.stringify(this.toJSON(), null, 2)}\n`;
  }

  /**
   * Writes the lock atomically: to a temporary file beside it, then renamed over it, so a reader (or a crash) never
   * sees half a file and nothing is written when serialising fails.
   */
  write(): void {
    const text = this.serialize();
    const temporary = join(dirname(this.file), `.${basename(this.file)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      writeFileSync(temporary, text, { flag: 'wx' });
      renameSync(temporary, this.file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new InvalidCalibrationLock(this.file, null, `could not be written: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

/** A deep copy with every plain object's keys in code-point order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

type Json = Record<string, unknown>;
type Fail = (field: string | null, problem: string) => never;

/** The fields of a lock entry and of one of its identities: any other is a typo or another format. */
const ENTRY_FIELDS = ['decision', 'version', 'thresholds', 'identities', 'cascade'];
const TIER_FIELDS = ['tier', 'connection', 'driver', 'model', 'thresholds'];
const IDENTITY_FIELDS = [
  'questions',
  'model',
  'connection',
  'driver',
  'language',
  'cases',
  'accuracy',
  'accuracyInterval',
  'reviewRate',
  'reviewRateInterval',
  'brier',
  'expectedCalibrationError',
  'dataset',
  'calibratedAt',
  'signal',
];
const ROOT_FIELDS = ['kind', 'format', 'judgments'];

/** An ISO 8601 date and time, as `Date.prototype.toISOString` and other writers give it (offset or Z required). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function parseLock(file: string, parsed: unknown): Record<string, Record<string, LockedDecision>> {
  const fail: Fail = (field, problem) => {
    throw new InvalidCalibrationLock(file, field, problem);
  };
  if (!isObject(parsed) || parsed.kind !== LOCK_KIND) {
    fail(
      'kind',
      `is not a nestjs-judgment calibration lock (expected "kind": "${LOCK_KIND}"): point the option at the file \`judgment eval --lock\` writes.`,
    );
  }
  const root = parsed as Json;
  if (root.format !== LOCK_FORMAT) {
    fail(
      'format',
      `has format ${JSON.stringify(root.format)}; this version of nestjs-judgment reads format ${LOCK_FORMAT}.`,
    );
  }
  onlyFields(null, root, ROOT_FIELDS, fail);
  if (!isObject(root.judgments)) fail('judgments', 'must be an object of Judgments by name.');
  const judgments: Record<string, Record<string, LockedDecision>> = dictionary({});
  for (const [judgment, entries] of namedEntries('judgments', root.judgments as Json, fail)) {
    const at = `judgments.${judgment}`;
    if (!isObject(entries)) fail(at, 'must be an object of Decisions by "Decision@version".');
    judgments[judgment] = dictionary({});
    for (const [key, raw] of namedEntries(at, entries as Json, fail)) {
      const entry = parseEntry(`${at}.${key}`, raw, fail);
      if (lockKey(entry.decision, entry.version) !== key) {
        fail(
          `${at}.${key}`,
          `is keyed ${JSON.stringify(key)} but describes ${lockKey(entry.decision, entry.version)}.`,
        );
      }
      judgments[judgment][key] = entry;
    }
  }
  return judgments;
}

function parseEntry(at: string, raw: unknown, fail: Fail): LockedDecision {
  if (!isObject(raw)) fail(at, 'must be an object.');
  const entry = raw as Json;
  onlyFields(at, entry, ENTRY_FIELDS, fail);
  if (typeof entry.decision !== 'string' || entry.decision === '') fail(`${at}.decision`, 'must be a Decision name.');
  if (entry.version !== null && typeof entry.version !== 'string') {
    fail(`${at}.version`, `must be a string or null${got(entry.version)}.`);
  }
  const thresholds = parseThresholds(`${at}.thresholds`, entry.thresholds, fail);
  if (!Array.isArray(entry.identities)) fail(`${at}.identities`, 'must be a list.');
  const identities = (entry.identities as unknown[]).map((identity, index) =>
    parseIdentity(`${at}.identities[${index}]`, identity, fail),
  );
  const parsed = {
    decision: entry.decision as string,
    version: entry.version as string | null,
    thresholds,
    identities,
  };
  if (entry.cascade === undefined || entry.cascade === null) return parsed;
  if (!Array.isArray(entry.cascade) || entry.cascade.length < 2) {
    fail(`${at}.cascade`, 'must be a list of at least two tiers, or null.');
  }
  const cascade = (entry.cascade as unknown[]).map((tier, index) =>
    parseTier(`${at}.cascade[${index}]`, tier, index, fail),
  );
  return { ...parsed, cascade };
}

function parseThresholds(at: string, raw: unknown, fail: Fail): Record<string, number> | null {
  if (raw === null) return null;
  if (!isObject(raw)) fail(at, 'must be an object of named numbers or null.');
  const thresholds: Record<string, number> = {};
  for (const [name, value] of namedEntries(at, raw as Json, fail)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) fail(`${at}.${name}`, `must be a number${got(value)}.`);
    thresholds[name] = value as number;
  }
  return thresholds;
}

function parseTier(at: string, raw: unknown, index: number, fail: Fail): LockedTier {
  if (!isObject(raw)) fail(at, 'must be an object.');
  const tier = raw as Json;
  onlyFields(at, tier, TIER_FIELDS, fail);
  if (tier.tier !== index + 1)
    fail(`${at}.tier`, `must be ${index + 1} (the tiers in order, from 1)${got(tier.tier)}.`);
  for (const field of ['connection', 'model']) {
    if (typeof tier[field] !== 'string' || tier[field] === '') {
      fail(`${at}.${field}`, `must be a non-empty string${got(tier[field])}.`);
    }
  }
  if (tier.driver !== null && typeof tier.driver !== 'string') {
    fail(`${at}.driver`, `must be a string or null${got(tier.driver)}.`);
  }
  return {
    tier: index + 1,
    connection: tier.connection as string,
    driver: tier.driver as string | null,
    model: tier.model as string,
    thresholds: parseThresholds(`${at}.thresholds`, tier.thresholds, fail),
  };
}

function parseIdentity(where: string, raw: unknown, fail: Fail): LockedIdentity {
  if (!isObject(raw)) fail(where, 'must be an object.');
  const value = raw as Json;
  onlyFields(where, value, IDENTITY_FIELDS, fail);
  for (const field of ['model', 'calibratedAt']) {
    if (typeof value[field] !== 'string' || value[field] === '') {
      fail(`${where}.${field}`, `must be a non-empty string${got(value[field])}.`);
    }
  }
  const calibratedAt = value.calibratedAt as string;
  if (!ISO_DATE_TIME.test(calibratedAt) || Number.isNaN(Date.parse(calibratedAt)) || !realDate(calibratedAt)) {
    fail(
      `${where}.calibratedAt`,
      `must be an ISO 8601 date and time such as 2026-12-01T09:30:00.000Z${got(calibratedAt)}.`,
    );
  }
  if (typeof value.questions !== 'string' || !SHA256_HEX.test(value.questions)) {
    fail(`${where}.questions`, `must be a SHA-256 fingerprint (64 lower-case hex digits)${got(value.questions)}.`);
  }
  if (value.dataset !== null && (typeof value.dataset !== 'string' || !SHA256_HEX.test(value.dataset))) {
    fail(`${where}.dataset`, `must be a SHA-256 fingerprint (64 lower-case hex digits) or null${got(value.dataset)}.`);
  }
  for (const field of ['connection', 'driver', 'language']) {
    if (value[field] !== null && typeof value[field] !== 'string') {
      fail(`${where}.${field}`, `must be a string or null${got(value[field])}.`);
    }
  }
  if (typeof value.cases !== 'number' || !Number.isInteger(value.cases) || value.cases < 0) {
    fail(`${where}.cases`, `must be a whole number${got(value.cases)}.`);
  }
  for (const field of ['accuracy', 'reviewRate']) {
    if (value[field] !== null && !isShare(value[field])) {
      fail(`${where}.${field}`, `must be a number in [0, 1] or null${got(value[field])}.`);
    }
  }
  for (const field of ['accuracyInterval', 'reviewRateInterval']) {
    const interval = value[field];
    if (interval === null) continue;
    const at = `${where}.${field}`;
    if (!isObject(interval)) fail(at, `must be { "low": number, "high": number } or null${got(interval)}.`);
    onlyFields(at, interval as Json, ['low', 'high'], fail);
    const { low, high } = interval as Json;
    for (const [bound, number] of [
      ['low', low],
      ['high', high],
    ] as const) {
      if (!isShare(number)) fail(`${at}.${bound}`, `must be a number in [0, 1]${got(number)}.`);
    }
    if ((low as number) > (high as number))
      fail(
        at,
        `has its low ${String(low)} above its high ${String(high)}: write the lock again with \`judgment eval --lock\`.`,
      );
  }
  for (const field of ['brier', 'expectedCalibrationError']) {
    if (!isObject(value[field])) fail(`${where}.${field}`, 'must be an object of numbers by Likelihood.');
    for (const [likelihood, score] of namedEntries(`${where}.${field}`, value[field] as Json, fail)) {
      if (score !== null && !isShare(score)) {
        fail(`${where}.${field}.${likelihood}`, `must be a number in [0, 1] or null${got(score)}.`);
      }
    }
  }
  const signal = value.signal;
  if (signal !== undefined && signal !== null) {
    const at = `${where}.signal`;
    if (!isObject(signal)) fail(at, `must be { "answers", "certainShare", "meanEntropy" } or null${got(signal)}.`);
    onlyFields(at, signal as Json, ['answers', 'certainShare', 'meanEntropy'], fail);
    const { answers, certainShare, meanEntropy } = signal as Json;
    if (typeof answers !== 'number' || !Number.isInteger(answers) || answers < 1) {
      fail(`${at}.answers`, `must be a whole number of 1 or more${got(answers)}.`);
    }
    for (const [field, share] of [
      ['certainShare', certainShare],
      ['meanEntropy', meanEntropy],
    ] as const) {
      if (!isShare(share)) fail(`${at}.${field}`, `must be a number in [0, 1]${got(share)}.`);
    }
  }
  return value as unknown as LockedIdentity;
}

/**
 * A map by name without a prototype, from the sources' own entries: a Judgment or Decision named like an object member
 * (`constructor`, `toString`) is only ever itself.
 */
function dictionary<T>(...sources: Readonly<Record<string, T>>[]): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, ...sources);
}

/** An object's entries, refusing a `__proto__` key (JSON.parse keeps it as an own key; a map would not). */
function namedEntries(at: string, object: Json, fail: Fail): Array<[string, unknown]> {
  const entries = Object.entries(object);
  if (Object.hasOwn(object, '__proto__')) {
    fail(
      `${at}.__proto__`,
      'is not a name a lock can hold: rename it, or write the lock again with `judgment eval --lock`.',
    );
  }
  return entries;
}

/** Refuses fields the format does not have (a typo, or a lock of another format). */
function onlyFields(at: string | null, object: Json, known: readonly string[], fail: Fail): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) {
      fail(
        at === null ? key : `${at}.${key}`,
        `is not a field of a calibration lock (format ${LOCK_FORMAT} has ${known.join(', ')}): remove it.`,
      );
    }
  }
}

/** What a refused value was, when it helps: a number written as text. */
function got(value: unknown): string {
  if (typeof value === 'string') return ` (got the string ${JSON.stringify(value.slice(0, 60))})`;
  return '';
}

/** Whether an ISO date's calendar fields are a real day (`Date.parse` rolls 2026-02-30 over to March). */
function realDate(iso: string): boolean {
  const [year, month, day] = iso.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isShare(value: unknown): boolean {
  return typeof value === 'number' && value >= 0 && value <= 1;
}
