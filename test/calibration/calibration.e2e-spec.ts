// Calibration end to end on PostgreSQL: the builder, the case sources, grouping, scoring and the report's JSON.
import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type Repository } from 'typeorm';
import { type Assessment, AssessmentRecord, Decision, Judge, Judgment } from 'nestjs-judgment';
import { Calibration, InvalidCalibration, LabelledCase } from 'nestjs-judgment/calibration';
import { NoDefaultDecision } from 'nestjs-judgment/testing';
import { wilsonInterval } from '../../libs/judgment/src/calibration/scoring';
import {
  AnyEvent,
  type CapturingLogger,
  LooseRefundAbuse,
  Refund,
  RefundAbuse,
  RefundDecision,
  RefundOutcome,
  StrictRefundDecision,
  calibrationApp,
  sawUntrustedExplanation,
  stubLog,
} from './support';
import { recreateDatabase } from '../support/postgres';

const DATABASE = 'judgment_calibration';

/** A Decision whose thresholds are not set yet: it throws for every answer, as a generated Decision does. */
@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate] })
class UncalibratedRefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(_assessment: Assessment<RefundAbuse>): RefundOutcome {
    throw new Error('UncalibratedRefundDecision is not calibrated yet.');
  }
}

describe('Calibration', () => {
  let app: INestApplication;
  let logger: CapturingLogger;
  let calibration: Calibration;
  let refunds: Repository<Refund>;
  let records: Repository<AssessmentRecord>;
  const datasets = mkdtempSync(join(tmpdir(), 'judgment-calibration-'));

  beforeAll(async () => {
    await recreateDatabase(DATABASE);
    ({ app, logger } = await calibrationApp(DATABASE));
    calibration = app.get(Calibration);
    refunds = app.get(DataSource).getRepository(Refund);
    records = app.get(DataSource).getRepository(AssessmentRecord);
  });

  afterAll(async () => {
    await app?.close();
    rmSync(datasets, { recursive: true, force: true });
  });

  beforeEach(async () => {
    stubLog.reset();
    await records.clear();
    await refunds.clear();
  });

  const refund = (explanation: string, locale: string | null = null) =>
    Object.assign(new Refund(), { item: 'Headphones', amount: 89.9, explanation, locale });
  const caseOf = (
    explanation: string,
    expected: string,
    options: { locale?: string; truth?: Record<string, boolean> } = {},
  ) =>
    LabelledCase.of(new RefundAbuse(refund(explanation, options.locale ?? null)), expected, { truth: options.truth });
  const dataset = (name: string, content: unknown) => {
    const path = join(datasets, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const resolvedRecord = (fields: Partial<AssessmentRecord>) =>
    records.save(
      records.create({
        judgment: 'refund-abuse',
        subjectType: 'Refund',
        subjectId: null,
        evidence: null,
        evidenceFingerprint: 'a'.repeat(64),
        untrustedPaths: [],
        language: null,
        questionsFingerprint: '0'.repeat(64),
        answers: { abusive: 0.5 },
        engine: 'stub',
        model: 'stub-1.0.0',
        decision: 'RefundDecision',
        decisionVersion: '2',
        outcomeType: 'RefundDecision',
        outcome: 'escalate',
        reviewRequestedAt: new Date('2026-01-01T00:00:00Z'),
        resolution: 'approve',
        resolverType: 'User',
        resolverId: '1',
        resolvedAt: new Date('2026-01-02T00:00:00Z'),
        ...fields,
      }),
    );

  describe('builder', () => {
    it('returns a new builder from every method and leaves the original unchanged', async () => {
      const base = calibration.for(RefundAbuse);
      const withCases = base.cases([caseOf('abusive=0.1', 'approve')]);
      expect(withCases).not.toBe(base);
      expect(Object.isFrozen(base)).toBe(true);
      await expect(base.run()).rejects.toThrow('No labelled cases to calibrate RefundAbuse against');
      expect((await withCases.run()).results[0].cases).toBe(1);
    });

    it('refuses a class that is not a Judgment', () => {
      expect(() => calibration.for(Refund as never)).toThrow(
        expect.objectContaining({
          name: 'InvalidCalibration',
          message: expect.stringMatching(/^Refund is not a Judgment/),
        }),
      );
    });

    it('refuses a case that is not a labelled case of the calibrated Judgment', () => {
      const other = LabelledCase.of(new LooseRefundAbuse(refund('x')), 'approve');
      expect(() => calibration.for(RefundAbuse).cases([caseOf('x', 'approve'), other as never])).toThrow(
        /The case at index 1 is not a labelled case of RefundAbuse/,
      );
    });

    it('refuses a class that is not a Decision', () => {
      expect(() => calibration.for(RefundAbuse).decisions(Refund as never)).toThrow(
        expect.objectContaining({
          name: 'InvalidCalibration',
          message: expect.stringMatching(/^Refund is not a Decision/),
        }),
      );
    });

    it("needs a Decision: the named ones, else the Judgment's default", async () => {
      @Judgment({ name: 'undecided' })
      class Undecided extends RefundAbuse {}
      const run = calibration
        .for(Undecided)
        .cases([LabelledCase.of(new Undecided(refund('x')), 'approve')])
        .run();
      await expect(run).rejects.toThrow(NoDefaultDecision);
      expect(stubLog.requests).toHaveLength(0);
    });

    it('refuses a concurrency below one', () => {
      expect(() => calibration.for(RefundAbuse).concurrency(0)).toThrow(/concurrency\(\) must be a whole number/);
    });
  });

  describe('labels', () => {
    it("stops on an expected Outcome that is not one of the Decision's, before asking any Engine", async () => {
      const run = calibration
        .for(RefundAbuse)
        .cases([caseOf('abusive=0.1', 'approve'), caseOf('x', 'aprove')])
        .run();
      await expect(run).rejects.toThrow(
        'The case at index 1 expects "aprove", which is not an Outcome of RefundDecision: expected "approve", ' +
          '"escalate" or "reject".',
      );
      expect(stubLog.requests).toHaveLength(0);
    });

    it('stops on an expected Outcome that requires Review', async () => {
      const run = calibration
        .for(RefundAbuse)
        .cases([caseOf('x', RefundOutcome.Escalate)])
        .run();
      await expect(run).rejects.toThrow(/index 0 expects "escalate", which RefundDecision sends to Review/);
      expect(stubLog.requests).toHaveLength(0);
    });

    it("stops on a case whose Evidence is above the round's size limit, before asking any Engine", async () => {
      const other = await calibrationApp(DATABASE, { maxEvidenceBytes: 2_000 });
      try {
        const run = other.app
          .get(Calibration)
          .for(RefundAbuse)
          .cases([caseOf('abusive=0.1', 'approve'), caseOf('x'.repeat(2_000), 'approve')])
          .run();
        await expect(run).rejects.toThrow(
          /The Evidence of refund-abuse \(the case at index 1\) is 2,\d{3} bytes as JSON, above the limit of 2,000/,
        );
        expect(stubLog.requests).toHaveLength(0);
      } finally {
        await other.app.close();
      }
    });

    it('stops on a truth given for something that is not a Likelihood', async () => {
      const run = calibration
        .for(RefundAbuse)
        .cases([caseOf('x', 'approve', { truth: { credibility: true } })])
        .run();
      await expect(run).rejects.toThrow(
        'The case at index 0 gives the truth of "credibility", but refund-abuse asks no Likelihood "credibility" ' +
          '(its Likelihoods: abusive, flags.spam, flags.threat).',
      );
    });
  });

  describe('dataset', () => {
    it('refuses a file that is not a readable JSON list', async () => {
      const missing = join(datasets, 'missing.json');
      await expect(calibration.for(RefundAbuse).fromDataset(missing).run()).rejects.toThrow(
        `The dataset ${missing} is not a readable JSON list of labelled cases`,
      );
      const object = dataset('object.json', { subject: {}, expected: 'approve' });
      await expect(calibration.for(RefundAbuse).fromDataset(object).run()).rejects.toThrow(
        `The dataset ${object} is not a readable JSON list of labelled cases: it holds an object, not a list.`,
      );
    });

    it('refuses a case without a Subject or without an expected Outcome', async () => {
      const noSubject = dataset('no-subject.json', [{ expected: 'approve' }]);
      await expect(calibration.for(RefundAbuse).fromDataset(noSubject).run()).rejects.toThrow(
        `The case at index 0 of the dataset ${noSubject} names no Subject`,
      );
      const noExpected = dataset('no-expected.json', [{ subject: { explanation: 'x' } }]);
      await expect(calibration.for(RefundAbuse).fromDataset(noExpected).run()).rejects.toThrow(
        `The case at index 0 of the dataset ${noExpected} names no expected Outcome`,
      );
    });

    it('builds unsaved Subjects from attributes and loads saved ones by primary key', async () => {
      const saved = await refunds.save(refund('abusive=0.1 saved', 'en'));
      const path = dataset('mixed.json', [
        { subject: { item: 'Lamp', amount: 20, explanation: 'abusive=0.9 unsaved', locale: 'en' }, expected: 'reject' },
        { subject: saved.id, expected: 'approve' },
      ]);
      const report = await calibration.for(RefundAbuse).fromDataset(path).run();
      expect(await refunds.count()).toBe(1);
      expect(stubLog.requests.map(({ evidence }) => JSON.stringify(evidence))).toEqual([
        expect.stringContaining('abusive=0.9 unsaved'),
        expect.stringContaining('abusive=0.1 saved'),
      ]);
      expect(report.results).toHaveLength(1);
      expect(report.results[0]).toMatchObject({ cases: 2, automatic: 2, correct: 2, identity: { language: 'en' } });
    });

    /** The error a run over the dataset at `path` stops with. */
    const refusalOf = (path: string) =>
      calibration
        .for(RefundAbuse)
        .fromDataset(path)
        .run()
        .then(
          () => new Error('the run did not stop'),
          (thrown: unknown) => thrown as Error,
        );

    it('names the case index and the field of a misspelled Subject attribute (issue 31)', async () => {
      const path = dataset('misspelled.json', [
        { subject: { item: 'Lamp', amount: 20, explanation: 'abusive=0.1' }, expected: 'approve' },
        { subject: { item: 'Lamp', amount: 20, explantion: 'abusive=0.1' }, expected: 'approve' },
      ]);
      const error = await refusalOf(path);
      expect(error).toBeInstanceOf(InvalidCalibration);
      expect(error.message).toBe(
        `The case at index 1 of the dataset ${path} gives the Subject Refund the field "explantion", which it does ` +
          'not have (did you mean "explanation"?). Its fields: id, item, amount, explanation, locale.',
      );
      expect(stubLog.requests).toHaveLength(0);
    });

    it('names the case index and the fields the case left out when its Judgment cannot build Evidence (issue 31)', async () => {
      const path = dataset('incomplete.json', [
        { subject: { item: 'Lamp', amount: 20, explanation: 'abusive=0.1' }, expected: 'approve' },
        { subject: { item: 'Lamp', amount: 20 }, expected: 'approve' },
      ]);
      const error = await refusalOf(path);
      expect(error).toBeInstanceOf(InvalidCalibration);
      expect(error.message).toMatch(
        new RegExp(
          `^The case at index 1 of the dataset ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*got undefined\\. ` +
            'The case gives no value for the field "explanation" of the Subject Refund: add it to the case\'s "subject"\\.$',
        ),
      );
      expect(stubLog.requests).toHaveLength(0);
    });

    it('names a Subject key that does not exist', async () => {
      const path = dataset('missing-key.json', [{ subject: 999, expected: 'approve' }]);
      await expect(calibration.for(RefundAbuse).fromDataset(path).run()).rejects.toThrow(
        `The case at index 0 of the dataset ${path} names the Subject Refund 999, which does not exist.`,
      );
    });

    it('reads the Subject entity from the constructor parameter type, or from subject() when it has none', async () => {
      const path = dataset('loose.json', [{ subject: { explanation: 'abusive=0.1' }, expected: 'approve' }]);
      await expect(calibration.for(LooseRefundAbuse).fromDataset(path).run()).rejects.toThrow(
        /LooseRefundAbuse is not constructed with an entity.*calibration\.for\(LooseRefundAbuse\)\.subject\(Refund\)/,
      );
      const report = await calibration.for(LooseRefundAbuse).fromDataset(path).subject(Refund).run();
      expect(report.results[0]).toMatchObject({ cases: 1, correct: 1 });
    });
  });

  describe('resolutions', () => {
    it('takes the latest Resolution per Evidence fingerprint and skips records without a Subject', async () => {
      const kept = await refunds.save(refund('abusive=0.1 current', 'fr'));
      const subjectId = String(kept.id);
      await resolvedRecord({ subjectId, resolution: 'reject', resolvedAt: new Date('2026-01-02T00:00:00Z') });
      await resolvedRecord({ subjectId, resolution: 'approve', resolvedAt: new Date('2026-01-03T00:00:00Z') });
      // Skipped: no Subject at all, and a deleted Subject; the older record of the latter's fingerprint still counts.
      await resolvedRecord({ subjectType: null, evidenceFingerprint: 'b'.repeat(64) });
      await resolvedRecord({
        subjectId: '99999',
        evidenceFingerprint: 'c'.repeat(64),
        resolvedAt: new Date('2026-01-05'),
      });
      await resolvedRecord({
        subjectId,
        evidenceFingerprint: 'c'.repeat(64),
        resolution: 'reject',
        resolvedAt: new Date('2026-01-04'),
      });
      // Never cases: unresolved, and another Judgment's.
      await resolvedRecord({ subjectId, evidenceFingerprint: 'd'.repeat(64), resolution: null, resolvedAt: null });
      await resolvedRecord({ subjectId, judgment: 'other', evidenceFingerprint: 'e'.repeat(64) });

      const report = await calibration.for(RefundAbuse).run();
      expect(report.skipped).toBe(2);
      const [result] = report.results;
      expect(result.cases).toBe(2);
      // Both cases answered 0.1 (approve): the latest Resolution of fingerprint a is approve, that of c is reject.
      expect(result.bands[0]).toMatchObject({ question: 'abusive', expected: { approve: 1, reject: 1 }, correct: 1 });
    });

    it('asks over the stored Evidence with its untrusted paths marked untrusted, in the recorded language', async () => {
      const kept = await refunds.save(refund('abusive=0.1 current', 'fr'));
      await resolvedRecord({
        subjectId: String(kept.id),
        evidence: { order: { item: 'Lamp', amount_eur: 20 }, request: { explanation: 'abusive=0.9 stored' } },
        untrustedPaths: ['request.explanation'],
        language: 'de',
        resolution: 'reject',
        resolvedAt: new Date('2026-01-03T00:00:00Z'),
      });
      await resolvedRecord({ subjectId: String(kept.id), evidenceFingerprint: 'f'.repeat(64) });

      const report = await calibration.for(RefundAbuse).run();
      const [stored, current] = stubLog.requests;
      expect(JSON.stringify(stored.evidence)).toContain('abusive=0.9 stored');
      expect(sawUntrustedExplanation(stored.evidence)).toBe(true);
      expect(JSON.stringify(current.evidence)).toContain('abusive=0.1 current');
      expect(report.results.map((result) => result.identity.language)).toEqual(['de', 'fr']);
    });
  });

  describe('run', () => {
    it('files results by model, Decision and language: connections, then cases, then Decisions', async () => {
      const report = await calibration
        .for(RefundAbuse)
        .engines('stub', 'stub-next')
        .decisions(RefundDecision, StrictRefundDecision)
        .cases([caseOf('abusive=0.1', 'approve'), caseOf('abusive=0.9 next-fails', 'reject', { locale: 'en' })])
        .run();
      expect(
        report.results.map(({ identity, cases, unassessed }) => [
          identity.model,
          identity.decision,
          identity.language,
          cases,
          unassessed,
        ]),
      ).toEqual([
        ['stub-1.0.0', 'RefundDecision', null, 1, 0],
        ['stub-1.0.0', 'strict-refund', null, 1, 0],
        ['stub-1.0.0', 'RefundDecision', 'en', 1, 0],
        ['stub-1.0.0', 'strict-refund', 'en', 1, 0],
        // The failed case files under the model its connection reported for the other case, not the configured one.
        ['stub-2.0.1', 'RefundDecision', null, 1, 0],
        ['stub-2.0.1', 'strict-refund', null, 1, 0],
        ['stub-2.0.1', 'RefundDecision', 'en', 1, 1],
        ['stub-2.0.1', 'strict-refund', 'en', 1, 1],
      ]);
      expect(report.results[0].identity.decisionVersion).toBe('2');
      expect(report.results[1].identity.decisionVersion).toBeNull();
    });

    it('files a failed case under the configured model when its connection answered no case', async () => {
      const report = await calibration
        .for(RefundAbuse)
        .engines('stub-next')
        .cases([caseOf('next-fails', 'approve')])
        .run();
      expect(report.results).toHaveLength(1);
      expect(report.results[0]).toMatchObject({
        identity: { model: 'stub-2.0.0' },
        cases: 1,
        unassessed: 1,
        reviewRate: null,
        accuracy: null,
        bands: [],
      });
    });

    it('counts a case as unassessed when the Engine fails it, also by breaking its contract', async () => {
      const report = await calibration
        .for(RefundAbuse)
        .cases([caseOf('abusive=0.1', 'approve'), caseOf('garbage', 'approve')])
        .run();
      expect(report.results[0]).toMatchObject({ cases: 2, unassessed: 1, automatic: 1, correct: 1 });
    });

    it('stops at the first Decision that throws, naming it and the case, before asking the remaining cases', async () => {
      const cases = Array.from({ length: 10 }, () => caseOf('abusive=0.1', 'approve'));
      const run = calibration.for(RefundAbuse).decisions(UncalibratedRefundDecision).concurrency(1).cases(cases).run();
      await expect(run).rejects.toThrow(InvalidCalibration);
      await expect(run).rejects.toThrow(
        /UncalibratedRefundDecision threw on the case at index 0: .*not calibrated yet/,
      );
      expect(stubLog.requests).toHaveLength(1);
    });

    it('runs at most `concurrency` cases at once and keeps the results in case order', async () => {
      // Earlier cases take longer, so they finish last; results still follow the cases.
      const cases = ['fr', 'en', 'de', 'it', 'es', 'nl'].map((locale, index) =>
        caseOf(`abusive=0.1 ticks=${20 - index * 3}`, 'approve', { locale }),
      );
      const report = await calibration.for(RefundAbuse).concurrency(2).cases(cases).run();
      expect(stubLog.maxInFlight).toBe(2);
      expect(report.results.map((result) => result.identity.language)).toEqual(['fr', 'en', 'de', 'it', 'es', 'nl']);
    });

    it('takes the default concurrency from the module option calibration.concurrency', async () => {
      const other = await calibrationApp(DATABASE, { calibration: { concurrency: 3 } });
      try {
        const cases = Array.from({ length: 8 }, () => caseOf('abusive=0.1 ticks=5', 'approve'));
        await other.app.get(Calibration).for(RefundAbuse).cases(cases).run();
        expect(stubLog.maxInFlight).toBe(3);
      } finally {
        await other.app.close();
      }
    });

    it('bands each Likelihood Set label by its probability and a Rating by its Confidence', async () => {
      const report = await calibration
        .for(RefundAbuse)
        .cases([caseOf('abusive=0.42', 'approve')])
        .run();
      // Rating [0.1, 0.2, 0.7]: Confidence 0.7 − 0.2 = 0.5.
      expect(report.results[0].bands.map(({ question, from }) => [question, from])).toEqual([
        ['abusive', 0.4],
        ['flags.spam', 0],
        ['flags.threat', 0],
        ['credibility', 0.5],
      ]);
    });

    it('scores each Likelihood with a truth: Brier score, calibration error and a reliability table', async () => {
      const report = await calibration
        .for(RefundAbuse)
        .cases([
          caseOf('abusive=0.9', 'reject', { truth: { abusive: true } }),
          caseOf('abusive=0.2', 'approve', { truth: { abusive: false, 'flags.spam': false } }),
          caseOf('abusive=0.6', 'approve', { truth: { abusive: false } }),
        ])
        .run();
      const [abusive, spam] = report.results[0].scores;
      expect(abusive.question).toBe('abusive');
      expect(abusive.cases).toBe(3);
      expect(abusive.brier).toBeCloseTo((0.01 + 0.04 + 0.36) / 3, 12);
      // Bins 0.2, 0.6 and 0.9 each hold one case: gaps 0.2, 0.6 and 0.1, weighted 1/3 each.
      expect(abusive.expectedCalibrationError).toBeCloseTo(0.9 / 3, 12);
      expect(abusive.reliability[9]).toEqual({
        from: 0.9,
        to: 1,
        count: 1,
        meanPredicted: 0.9,
        observed: 1,
        interval: wilsonInterval(1, 1),
      });
      expect(spam).toMatchObject({ question: 'flags.spam', cases: 1, brier: 0.05 ** 2 });
    });

    it('gives Wilson intervals on review rate and accuracy and warns below 30 cases', async () => {
      const small = await calibration
        .for(RefundAbuse)
        .cases([caseOf('abusive=0.1', 'approve'), caseOf('abusive=0.5', 'approve')])
        .run();
      expect(small.results[0].reviewRateInterval).toEqual(wilsonInterval(1, 2));
      expect(small.results[0].accuracyInterval).toEqual(wilsonInterval(1, 1));
      expect(small.results[0].warnings).toEqual([expect.stringMatching(/^Only 2 cases in this group: below 30/)]);

      const large = await calibration
        .for(RefundAbuse)
        .cases(Array.from({ length: 30 }, () => caseOf('abusive=0.1', 'approve')))
        .run();
      expect(large.results[0].warnings).toEqual([]);
    });

    it('serialises the report in the reference JSON shape', async () => {
      const report = await calibration
        .for(RefundAbuse)
        .cases([caseOf('abusive=0.1', 'approve')])
        .run();
      const json = JSON.parse(JSON.stringify(report));
      expect(Object.keys(json)).toEqual(['results', 'skipped']);
      const [result] = json.results;
      expect(Object.keys(result)).toEqual([
        'identity',
        'cases',
        'unassessed',
        'sentToReview',
        'automatic',
        'correct',
        'reviewRate',
        'accuracy',
        'bands',
        'reviewRateInterval',
        'accuracyInterval',
        'scores',
        'warnings',
      ]);
      expect(Object.keys(result.identity)).toEqual(['questions', 'model', 'decision', 'decisionVersion', 'language']);
      expect(result.identity.decision).toBe('RefundDecision');
      expect(result.bands[0]).toEqual({
        question: 'abusive',
        from: 0.1,
        to: 0.2,
        cases: 1,
        expected: { approve: 1 },
        sentToReview: 0,
        automatic: 1,
        correct: 1,
        reviewRate: 0,
        accuracy: 1,
      });
    });

    it('records, caches, logs and announces nothing', async () => {
      const events = app.get(AnyEvent);
      const [eventsBefore, linesBefore] = [events.names.length, logger.lines.length];
      const labelled = caseOf('abusive=0.9', 'reject');
      await calibration.for(RefundAbuse).cases([labelled]).run();
      expect(await records.count()).toBe(0);
      expect(events.names).toHaveLength(eventsBefore);
      expect(logger.lines).toHaveLength(linesBefore);

      // RefundAbuse caches for an hour: had the run cached its answers, the Judge would not ask the Engine again.
      await app.get(Judge).assess(labelled.judgment);
      expect(stubLog.requests).toHaveLength(2);
      expect(events.names).toContain('AssessmentCompleted');
    });
  });
});
