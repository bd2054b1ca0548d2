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
