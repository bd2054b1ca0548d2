import { roundedCost } from '../engines/pricing/round-cost';
import type { RecordWriter } from '../persistence/record.writer';

/** What one Judgment's records cost since a moment, in one currency (null: none of its records has a cost). */
export interface JudgmentCost {
  readonly judgment: string;
  readonly currency: string | null;
  /** Records (attempts: answered, cached and Unassessed) written in the window. */
  readonly records: number;
  /** Of those, the records with an automatic Outcome: the decisions the cost is spread over. */
  readonly decisions: number;
  /** Records without a cost: an unpriced connection, a payment not known, or written before costs were kept. */
  readonly uncosted: number;
  /** The cost of every record in the window in `currency` (null when none has one). */
  readonly total: number | null;
  /** `total / decisions`, rounded to 12 places; null without a cost or a decision. A lower bound when `uncosted > 0`. */
  readonly perDecision: number | null;
}

interface CountRow {
  judgment: string;
  records: string | number;
  decisions: string | number;
  costed: string | number;
}

interface SumRow {
  judgment: string;
  currency: string;
  total: string | number;
}

/**
 * The cost per decision of each Judgment over the records written since `since`: every attempt's cost (failed and
 * cached ones too: a retry's round is paid once, on its own record) over the decisions among them. Two aggregate
 * queries, read through the created_at index. One entry per Judgment and currency, Judgments by name.
 */
export async function costPerDecision(rows: RecordWriter, since: Date): Promise<JudgmentCost[]> {
  const repository = rows.repository();
  const counts = await repository
    .createQueryBuilder('record')
    .select('record.judgment', 'judgment')
    .addSelect('COUNT(*)', 'records')
    .addSelect('COUNT(record.outcome)', 'decisions')
    .addSelect('COUNT(record.cost)', 'costed')
    .where('record.created_at >= :since', { since })
    .groupBy('record.judgment')
    .getRawMany<CountRow>();
  const sums = await repository
    .createQueryBuilder('record')
    .select('record.judgment', 'judgment')
    .addSelect('record.cost_currency', 'currency')
    .addSelect('SUM(record.cost)', 'total')
    .where('record.created_at >= :since', { since })
    .andWhere('record.cost IS NOT NULL')
    .groupBy('record.judgment')
    .addGroupBy('record.cost_currency')
    .getRawMany<SumRow>();
  const costs: JudgmentCost[] = [];
  for (const row of counts.sort((a, b) => (a.judgment < b.judgment ? -1 : a.judgment > b.judgment ? 1 : 0))) {
    const records = Number(row.records);
    const decisions = Number(row.decisions);
    const shared = { judgment: row.judgment, records, decisions, uncosted: records - Number(row.costed) };
    const priced = sums
      .filter((sum) => sum.judgment === row.judgment)
      .sort((a, b) => (a.currency < b.currency ? -1 : 1));
    if (priced.length === 0) costs.push({ ...shared, currency: null, total: null, perDecision: null });
    for (const sum of priced) {
      const total = roundedCost(Number(sum.total));
      const perDecision = decisions === 0 ? null : roundedCost(total / decisions);
      costs.push({ ...shared, currency: sum.currency, total, perDecision });
    }
  }
  return costs;
}
