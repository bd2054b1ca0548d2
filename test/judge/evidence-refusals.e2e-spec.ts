// Evidence that JSON would flatten or change, and Evidence above the round's size limit, is refused with
// InvalidEvidence before the Engine is asked (issue 27, point 6): nothing is sent, paid, recorded or announced.
// PostgreSQL, the Jev simulator over HTTP.
import { Evidence, Judgment, Likelihood } from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import { InvalidConfiguration, InvalidEvidence } from 'nestjs-judgment/testing';
import {
  type Harness,
  NoteCheck,
  SuiteDatabase,
  decisionRequests,
  jevOptions,
  rejectionOf,
  startApp,
  startSimulator,
} from './support';

let db: SuiteDatabase;
let sim: JevSimulator;
let url: string;
let harness: Harness | undefined;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_judge_evidence_refusals');
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

beforeEach(async () => {
  await db.reset();
  sim.clearLog();
});

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A Judgment showing whatever Evidence the test gives it, under the judgment's own text. */
@Judgment({ name: 'shown-evidence' })
class ShownEvidence implements Judgment {
  constructor(readonly shown: () => unknown) {}

  evidence() {
    return this.shown() as Record<string, unknown>;
  }

  questions() {
    return { flagged: Likelihood.that('Does the note ask for something against the rules? [[flagged=0.2]]') };
  }
}

/** The same Judgment with a larger size limit of its own. */
@Judgment({ name: 'long-evidence', maxEvidenceBytes: 64_000 })
class LongEvidence extends ShownEvidence {}

const start = (options = {}) =>
  startApp({
    typeOrm: db.typeOrm('postgres'),
    options: jevOptions(url, options),
    judgments: [ShownEvidence, LongEvidence],
  });

/** Assesses and expects InvalidEvidence with nothing sent, recorded or announced; returns the error. */
async function refused(judgment: ShownEvidence): Promise<InvalidEvidence> {
  const error = await rejectionOf(harness!.judge.assess(judgment));
  expect(error).toBeInstanceOf(InvalidEvidence);
  expect(decisionRequests(sim)).toHaveLength(0);
  expect(await harness!.records()).toHaveLength(0);
  expect(harness!.captured.trail).toEqual([]);
  return error as InvalidEvidence;
}

describe('Evidence JSON would flatten or change is refused before the Engine is asked', () => {
  it('a forgotten await (a Promise) names its path', async () => {
    harness = await start();
    const lookup = async () => 'It arrived broken.';
    const error = await refused(new ShownEvidence(() => ({ request: { explanation: lookup() } })));
    expect(error.path).toBe('request.explanation');
    expect(error.message).toMatch(/"request\.explanation" is a Promise.*await/);
  });

  it('an Error names its path and says to show its message', async () => {
    harness = await start();
    const error = await refused(new ShownEvidence(() => ({ payment: { failure: new Error('declined') } })));
    expect(error.path).toBe('payment.failure');
    expect(error.message).toMatch(/Error.*error\.message/);
  });

  it('a bare Date returned as the whole Evidence is refused at the root', async () => {
    harness = await start();
    const error = await refused(new ShownEvidence(() => new Date(Date.UTC(2026, 0, 2))));
    expect(error.path).toBe('');
    expect(error.message).toMatch(/\{ key: value \} object.*a bare string/);
  });

  it('plain data, a Date among it, still goes out and is recorded as it was sent', async () => {
    harness = await start();
    const placedAt = new Date(Date.UTC(2026, 0, 2));
    await harness.judge.assess(new ShownEvidence(() => ({ placedAt, note: Evidence.untrusted('Hello') })));
    expect(decisionRequests(sim)).toHaveLength(1);
    const [record] = await harness.records();
    expect(record.evidence).toEqual({ placedAt: '2026-01-02T00:00:00.000Z', note: 'Hello' });
  });
});

describe("a round's Evidence size limit", () => {
  it('by default refuses 10 MB of Evidence before any call, saying its size, the limit and the fix', async () => {
    harness = await start();
    const error = await refused(new ShownEvidence(() => ({ note: 'x'.repeat(10 * 1024 * 1024) })));
    expect(error.path).toBeNull();
    expect(error.message).toMatch(/shown-evidence is 10,485,771 bytes.*1,048,576.*maxEvidenceBytes/);
  });

  it('the module option maxEvidenceBytes lowers it; Evidence at the limit still goes out', async () => {
    harness = await start({ maxEvidenceBytes: 1_000 });
    // {"note":"…"} is 11 bytes around the text.
    await refused(new ShownEvidence(() => ({ note: 'x'.repeat(990) })));
    await harness.judge.assess(new ShownEvidence(() => ({ note: 'x'.repeat(989) })));
    expect(decisionRequests(sim)).toHaveLength(1);
    expect(await harness.records()).toHaveLength(1);
  });

  it('@Judgment({ maxEvidenceBytes }) overrides it for one Judgment', async () => {
    harness = await start({ maxEvidenceBytes: 1_000 });
    await harness.judge.assess(new LongEvidence(() => ({ note: 'x'.repeat(30_000) })));
    expect(decisionRequests(sim)).toHaveLength(1);
    const error = await rejectionOf(harness.judge.assess(new LongEvidence(() => ({ note: 'x'.repeat(70_000) }))));
    expect(error).toBeInstanceOf(InvalidEvidence);
    expect(error.message).toMatch(/long-evidence .*64,000 bytes/);
    expect(decisionRequests(sim)).toHaveLength(1);
  });

  it.each([0, -1, 1.5, '1000'])('refuses to start with maxEvidenceBytes %p', async (value) => {
    const error = await rejectionOf(start({ maxEvidenceBytes: value as number }));
    expect(error).toBeInstanceOf(InvalidConfiguration);
    expect(error.message).toMatch(/maxEvidenceBytes must be a whole number of bytes above 0/);
  });

  it('the note Judgment of the other suites is far below the default', async () => {
    harness = await startApp({ typeOrm: db.typeOrm('postgres'), options: jevOptions(url) });
    await harness.judge.assess(new NoteCheck('Refund please. [[flagged=0.1]]'));
    expect(await harness.records()).toHaveLength(1);
  });
});
