// The review queue's one-line summaries (issue 30, point 2) on PostgreSQL: the default (Subject entity, key, first short
// text field), a Judgment's reviewSummary, and a hook that throws or returns no text: the row shows the record id,
// the page still renders, and the error is logged once per Judgment, not once per row or page.
import type { Assessment } from 'nestjs-judgment';
import { Evidence, Judgment, JudgmentModule, Likelihood } from 'nestjs-judgment';
import { JudgmentHttpModule } from 'nestjs-judgment/http';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  Customer,
  LogCapture,
  RefundAbuse,
  RefundDecision,
  type ReviewApp,
  prepareDatabase,
  startApp,
  startSimulator,
} from '../review/review.fixtures';

const DATABASE = 'judgment_desk_summary';

/** Keeps the error lines the app's logger gets, with their context. */
class ErrorCapture extends LogCapture {
  readonly errors: Array<{ message: unknown; context: unknown }> = [];
  override error(message?: unknown, ...rest: unknown[]): void {
    this.errors.push({ message, context: rest[rest.length - 1] });
  }
}

class RefundLike {
  constructor(readonly customer: Customer) {}
  evidence() {
    return { note: Evidence.untrusted(this.customer.note) };
  }
  questions() {
    return { abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?') };
  }
}

@Judgment<Customer>({
  name: 'summary-throws',
  decision: () => RefundDecision,
  reviewSummary: (customer) => {
    throw new Error(`customer #${customer.id} has no title loaded`);
  },
})
class SummaryThrows extends RefundLike implements Judgment {}

@Judgment<Customer>({
  name: 'summary-typed',
  decision: () => RefundDecision,
  reviewSummary: (customer) => `Note of customer ${customer.id}:\n  ${customer.note.slice(0, 9)}`,
})
class SummaryTyped extends RefundLike implements Judgment {}

@Judgment({ name: 'summary-not-text', decision: () => RefundDecision, reviewSummary: () => 42 as never })
class SummaryNotText extends RefundLike implements Judgment {}

let simulator: JevSimulator;
let context: ReviewApp;
let base: string;
const logs = new ErrorCapture();

async function inReview(cls: new (customer: Customer) => Judgment, note: string): Promise<number> {
  const customer = await context.customer(`${note} [[abusive=0.5]]`);
  const assessment = (await context.judge.assess(new cls(customer))) as Assessment<RefundAbuse>;
  await assessment.outcome();
  const [row] = await context.dataSource.query('SELECT max(id)::int AS id FROM judgment_assessments');
  return row.id;
}

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  const started = await startSimulator();
  simulator = started.simulator;
  context = await startApp(DATABASE, started.url, {
    logs,
    imports: [
      JudgmentModule.forFeature([SummaryThrows, SummaryTyped, SummaryNotText]),
      JudgmentHttpModule.forRoot({ ui: true, canView: () => true, reviewerFrom: () => ({ type: 'staff', id: 'a' }) }),
    ],
  });
  await context.app.listen(0, '127.0.0.1');
  base = (await context.app.getUrl()).replace('[::1]', '127.0.0.1');
});

afterAll(async () => {
  await context?.app.close();
  await simulator?.stop();
});

it('a hook that throws shows the record id, the page still renders, and its error is logged once; a typed hook and the default summarise', async () => {
  const plain = await inReview(RefundAbuse, 'Zip broke on day one');
  const typed = await inReview(SummaryTyped, 'Arrived   late and cold');
  const throwing = [await inReview(SummaryThrows, 'one'), await inReview(SummaryThrows, 'two')];
  const notText = await inReview(SummaryNotText, 'three');

  for (let load = 0; load < 2; load++) {
    const response = await fetch(`${base}/judgment/desk`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`>Customer #1 — Zip broke on day one [[abusive=0.5]]</a>`); // the default
    expect(html).toContain(`>Note of customer 2: Arrived</a>`); // the hook's text, on one line
    for (const id of [...throwing, notText]) expect(html).toContain(`/records/${id}">Record #${id}</a>`);
    expect(html).toContain(`/records/${plain}"`);
    expect(html).toContain(`/records/${typed}"`);
  }
  const reviewDesk = logs.errors.filter((line) => line.context === 'JudgmentReviewDesk');
  expect(reviewDesk.map((line) => line.message)).toEqual([
    expect.stringMatching(
      /^The reviewSummary of the Judgment summary-throws failed: customer #3 has no title loaded\./,
    ),
    expect.stringMatching(/^The reviewSummary of the Judgment summary-not-text failed: it returned number, not a line/),
  ]);

  // The JSON list carries the same summaries.
  const list = (await (await fetch(`${base}/judgment/reviews`)).json()) as { data: Array<{ summary: string }> };
  expect(list.data.map((item) => item.summary)).toEqual([
    'Customer #1 — Zip broke on day one [[abusive=0.5]]',
    'Note of customer 2: Arrived',
    `Record #${throwing[0]}`,
    `Record #${throwing[1]}`,
    `Record #${notText}`,
  ]);
});
