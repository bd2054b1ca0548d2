import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidCalibrationLock } from '../errors';
import { CalibrationLock, LOCK_KIND, type LockedDecision } from './calibration-lock';

const identity = {
  questions: 'a'.repeat(64),
  model: 'jev-1.13.0',
  connection: 'jev',
  driver: 'jev',
  language: null,
  cases: 600,
  accuracy: 0.97,
  accuracyInterval: { low: 0.95, high: 0.98 },
  reviewRate: 0.05,
  reviewRateInterval: { low: 0.03, high: 0.07 },
  brier: { abusive: 0.03 },
  expectedCalibrationError: { abusive: 0.01 },
  dataset: 'b'.repeat(64),
  calibratedAt: '2026-12-01T01:00:00.000Z',
};
const entry: LockedDecision = {
  decision: 'RefundDecision',
  version: '3',
  thresholds: { reject: 0.64, escalate: 0.26 },
  identities: [identity],
};

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'judgment-lock-'));
}

describe('CalibrationLock', () => {
  it('round-trips an entry through the file, keyed by Judgment and Decision@version', () => {
    const file = join(folder(), 'judgment.lock.json');
    CalibrationLock.empty(file).with('refund-abuse', entry).write();
    const read = CalibrationLock.read(file);
    expect(read.entry('refund-abuse', 'RefundDecision', '3')).toEqual(entry);
    expect(read.entry('refund-abuse', 'RefundDecision', '2')).toBeNull();
    expect(read.judgmentNames()).toEqual(['refund-abuse']);
  });

  it('round-trips the signal figures, and reads a lock written before them (no signal)', () => {
    const file = join(folder(), 'judgment.lock.json');
    const signal = { answers: 60, certainShare: 0.05, meanEntropy: 0.42 };
    const measured = { ...entry, identities: [{ ...identity, signal }] };
    CalibrationLock.empty(file).with('refund-abuse', measured).write();
    expect(CalibrationLock.read(file).entry('refund-abuse', 'RefundDecision', '3')?.identities[0].signal).toEqual(
      signal,
    );
    CalibrationLock.empty(file).with('refund-abuse', entry).write();
    expect(
      CalibrationLock.read(file).entry('refund-abuse', 'RefundDecision', '3')?.identities[0].signal,
    ).toBeUndefined();
  });

  it('writes keys in a stable sorted order, whatever order they were given in', () => {
    const file = join(folder(), 'judgment.lock.json');
    const reordered = { ...entry, thresholds: { escalate: 0.26, reject: 0.64 } };
    const a = CalibrationLock.empty(file).with('refund-abuse', entry).with('b-judgment', entry).serialize();
    const b = CalibrationLock.empty(file).with('b-judgment', entry).with('refund-abuse', reordered).serialize();
    expect(a).toBe(b);
    expect(Object.keys(JSON.parse(a))).toEqual(['format', 'judgments', 'kind']);
    expect(a.indexOf('"b-judgment"')).toBeLessThan(a.indexOf('"refund-abuse"'));
  });

  it('writes atomically: no temporary file is left behind', () => {
    const dir = folder();
    CalibrationLock.empty(join(dir, 'judgment.lock.json')).with('refund-abuse', entry).write();
    expect(readdirSync(dir)).toEqual(['judgment.lock.json']);
  });

  it('refuses a file that is not JSON, naming the file', () => {
    const file = join(folder(), 'judgment.lock.json');
    writeFileSync(file, '{ "kind": ');
    expect(() => CalibrationLock.read(file)).toThrow(InvalidCalibrationLock);
    expect(() => CalibrationLock.read(file)).toThrow(`The calibration lock ${file} is not valid JSON`);
  });

  it('refuses a JSON file that is not a calibration lock, naming the field', () => {
    const file = join(folder(), 'package.json');
    writeFileSync(file, JSON.stringify({ name: 'app' }));
    expect(() => CalibrationLock.read(file)).toThrow(/\(field kind\) is not a nestjs-judgment calibration lock/);
  });

  it('refuses a corrupt entry, naming the JSON path of the field', () => {
    const file = join(folder(), 'judgment.lock.json');
    const broken = { ...identity, model: 42 };
    writeFileSync(
      file,
      JSON.stringify({
        kind: LOCK_KIND,
        format: 1,
        judgments: { 'refund-abuse': { 'RefundDecision@3': { ...entry, identities: [broken] } } },
      }),
    );
    expect(() => CalibrationLock.read(file)).toThrow(
      'field judgments.refund-abuse.RefundDecision@3.identities[0].model) must be a non-empty string',
    );
  });

  it("round-trips an escalation cascade's tiers, and refuses a tier out of order or without a model", () => {
    const file = join(folder(), 'judgment.lock.json');
    const cascade = [
      { tier: 1, connection: 'cheap', driver: 'openai', model: 'sim-4o-2026-09-17', thresholds: { reject: 0.9 } },
      { tier: 2, connection: 'strong', driver: 'jev', model: 'jev-1.13.0', thresholds: null },
    ];
    CalibrationLock.empty(file)
      .with('refund-abuse', { ...entry, cascade })
      .write();
    expect(CalibrationLock.read(file).entry('refund-abuse', 'RefundDecision', '3')?.cascade).toEqual(cascade);
    const write = (tiers: unknown) =>
      writeFileSync(
        file,
        JSON.stringify({
          kind: LOCK_KIND,
          format: 1,
          judgments: { 'refund-abuse': { 'RefundDecision@3': { ...entry, cascade: tiers } } },
        }),
      );
    write([cascade[1], cascade[0]]);
    expect(() => CalibrationLock.read(file)).toThrow(
      'field judgments.refund-abuse.RefundDecision@3.cascade[0].tier) must be 1 (the tiers in order, from 1)',
    );
    write([cascade[0], { ...cascade[1], model: '' }]);
    expect(() => CalibrationLock.read(file)).toThrow('cascade[1].model) must be a non-empty string');
    write([cascade[0]]);
    expect(() => CalibrationLock.read(file)).toThrow('cascade) must be a list of at least two tiers, or null');
  });

  /** A lock file holding `judgments` as written (raw JSON text, so keys like `__proto__` stay own keys). */
  function lockFile(judgments: string): string {
    const file = join(folder(), 'judgment.lock.json');
    writeFileSync(file, `{"kind":${JSON.stringify(LOCK_KIND)},"format":1,"judgments":${judgments}}`);
    return file;
  }

  /** The lock's one entry with its one identity changed by `change`. */
  function withIdentity(change: (identity: Record<string, unknown>) => void): string {
    const changed: Record<string, unknown> = structuredClone(identity);
    change(changed);
    return JSON.stringify({ 'refund-abuse': { 'RefundDecision@3': { ...entry, identities: [changed] } } });
  }

  const AT = 'judgments.refund-abuse.RefundDecision@3';
  it.each([
    ['a Judgment keyed __proto__', `{"__proto__":{}}`, 'judgments.__proto__', /is not a name a lock can hold/],
    [
      'a Decision keyed __proto__',
      `{"refund-abuse":{"__proto__":${JSON.stringify(entry)}}}`,
      'judgments.refund-abuse.__proto__',
      /is not a name a lock can hold/,
    ],
    [
      'a threshold keyed __proto__',
      JSON.stringify({ 'refund-abuse': { 'RefundDecision@3': entry } }).replace('"reject"', '"__proto__"'),
      `${AT}.thresholds.__proto__`,
      /is not a name a lock can hold/,
    ],
    [
      'a Brier score keyed __proto__',
      withIdentity((i) => (i.brier = { abusive: 0.03 })).replace('"abusive":0.03', '"__proto__":0.03'),
      `${AT}.identities[0].brier.__proto__`,
      /is not a name a lock can hold/,
    ],
    [
      'a date that is not ISO 8601',
      withIdentity((i) => (i.calibratedAt = 'yesterday')),
      `${AT}.identities[0].calibratedAt`,
      /must be an ISO 8601 date and time/,
    ],
    [
      'a date in another format',
      withIdentity((i) => (i.calibratedAt = '12/01/2026 01:00')),
      `${AT}.identities[0].calibratedAt`,
      /must be an ISO 8601 date and time/,
    ],
    [
      'an impossible ISO date',
      withIdentity((i) => (i.calibratedAt = '2026-13-45T01:00:00.000Z')),
      `${AT}.identities[0].calibratedAt`,
      /must be an ISO 8601 date and time/,
    ],
    [
      'an interval whose low is above its high',
      withIdentity((i) => (i.accuracyInterval = { low: 0.98, high: 0.95 })),
      `${AT}.identities[0].accuracyInterval`,
      /low 0\.98 above its high 0\.95/,
    ],
    [
      'a share given as text',
      withIdentity((i) => (i.accuracy = '0.97')),
      `${AT}.identities[0].accuracy`,
      /must be a number in \[0, 1\] or null \(got the string "0\.97"\)/,
    ],
    [
      'a count given as text',
      withIdentity((i) => (i.cases = '600')),
      `${AT}.identities[0].cases`,
      /must be a whole number \(got the string "600"\)/,
    ],
    [
      'an interval bound given as text',
      withIdentity((i) => (i.reviewRateInterval = { low: '0.03', high: 0.07 })),
      `${AT}.identities[0].reviewRateInterval.low`,
      /must be a number in \[0, 1\] \(got the string "0\.03"\)/,
    ],
    [
      'a Brier score given as text',
      withIdentity((i) => (i.brier = { abusive: '0.03' })),
      `${AT}.identities[0].brier.abusive`,
      /must be a number in \[0, 1\] or null \(got the string "0\.03"\)/,
    ],
    [
      'a calibration error given as text',
      withIdentity((i) => (i.expectedCalibrationError = { abusive: '0.01' })),
      `${AT}.identities[0].expectedCalibrationError.abusive`,
      /must be a number in \[0, 1\] or null/,
    ],
    [
      'a threshold given as text',
      JSON.stringify({ 'refund-abuse': { 'RefundDecision@3': { ...entry, thresholds: { reject: '0.64' } } } }),
      `${AT}.thresholds.reject`,
      /must be a number \(got the string "0\.64"\)/,
    ],
    [
      'a questions fingerprint that is not SHA-256 hex',
      withIdentity((i) => (i.questions = 'abc')),
      `${AT}.identities[0].questions`,
      /must be a SHA-256 fingerprint/,
    ],
    [
      'signal figures with a share above 1',
      withIdentity((i) => (i.signal = { answers: 60, certainShare: 1.5, meanEntropy: 0.4 })),
      `${AT}.identities[0].signal.certainShare`,
      /must be a number in \[0, 1\]/,
    ],
    [
      'signal figures with no answers',
      withIdentity((i) => (i.signal = { answers: 0, certainShare: 0, meanEntropy: 0 })),
      `${AT}.identities[0].signal.answers`,
      /must be a whole number of 1 or more/,
    ],
    [
      'signal figures with a field of another format',
      withIdentity((i) => (i.signal = { answers: 60, certainShare: 0.1, meanEntropy: 0.4, top: 0.9 })),
      `${AT}.identities[0].signal.top`,
      /is not a field of a calibration lock/,
    ],
    [
      'an unknown field (a typo)',
      withIdentity((i) => (i.accuracyy = 0.9)),
      `${AT}.identities[0].accuracyy`,
      /is not a field of a calibration lock/,
    ],
  ])('refuses %s, naming the file and the field', (_case, judgments, field, problem) => {
    const file = lockFile(judgments);
    const error = (() => {
      try {
        CalibrationLock.read(file);
      } catch (thrown) {
        return thrown as InvalidCalibrationLock;
      }
      throw new Error('the lock was read');
    })();
    expect(error).toBeInstanceOf(InvalidCalibrationLock);
    expect(error.file).toBe(file);
    expect(error.field).toBe(field);
    expect(error.message).toContain(`The calibration lock ${file} (field ${field}) `);
    expect(error.message).toMatch(problem);
  });

  it('reads a lock whose Judgment and Decision are named like object members (constructor, toString)', () => {
    const file = lockFile(JSON.stringify({ toString: { 'RefundDecision@3': entry } }));
    const lock = CalibrationLock.read(file);
    expect(lock.entry('toString', 'RefundDecision', '3')).toEqual(entry);
    expect(lock.entry('constructor', 'RefundDecision', '3')).toBeNull();
    expect(lock.entries('constructor')).toEqual([]);
    expect(lock.entry('toString', 'constructor', null)).toBeNull();
    expect(lock.entry('toString', 'hasOwnProperty', null)).toBeNull();
    const updated = lock.with('valueOf', entry);
    expect(updated.entry('toString', 'constructor', null)).toBeNull();
    expect(updated.entry('valueOf', 'RefundDecision', '3')).toEqual(entry);
  });

  it('refuses an entry whose key does not name its Decision and version', () => {
    const file = join(folder(), 'judgment.lock.json');
    writeFileSync(
      file,
      JSON.stringify({ kind: LOCK_KIND, format: 1, judgments: { x: { 'RefundDecision@2': entry } } }),
    );
    expect(() => CalibrationLock.read(file)).toThrow('describes RefundDecision@3');
  });

  it('refuses a missing file, saying how to write one', () => {
    expect(() => CalibrationLock.read(join(folder(), 'none.json'))).toThrow(
      /does not exist: write one with `judgment eval/,
    );
  });

  it('leaves the existing file untouched when writing fails', () => {
    const dir = folder();
    const file = join(dir, 'judgment.lock.json');
    CalibrationLock.empty(file).with('refund-abuse', entry).write();
    const before = readFileSync(file, 'utf8');
    const impossible = CalibrationLock.empty(join(dir, 'missing-folder', 'judgment.lock.json')).with('x', entry);
    expect(() => impossible.write()).toThrow(InvalidCalibrationLock);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
