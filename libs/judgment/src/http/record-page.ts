import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';
import type { ClaimFilter, ListRecordsQuery } from './review.dto';
import { requestReviewer } from './reviewer-from';

/** A list query's page: its Judgment filter, size, `after` cursor, and `offset` where the route takes one. */
type PageQuery = Pick<ListRecordsQuery, 'judgment' | 'limit' | 'after'> & { readonly offset?: number };

/**
 * One page of a record list. `nextAfter` is the `after` of the next page (keyset pagination, fast at any depth);
 * `next` is its `offset` (slow on large tables). Both are null on the last page.
 */
export interface RecordPage<T> {
  readonly data: T[];
  readonly page: {
    readonly limit: number;
    readonly offset: number;
    readonly next: number | null;
    readonly nextAfter: number | null;
  };
}

/** The query's paging as a record filter: one record more than the page, to know whether another page follows. */
export function pageFilter(query: PageQuery) {
  return { judgment: query.judgment, limit: query.limit + 1, after: query.after, offset: query.offset };
}

type Reviewer = Awaited<ReturnType<typeof requestReviewer>>;

/** The Review list's `claim` filter as a record filter (`mine`, `others`: as seen by the requesting reviewer). */
export async function claimFilter(
  claim: ClaimFilter | undefined,
  options: JudgmentHttpOptions,
  request: JudgmentHttpRequest,
): Promise<{ unclaimed?: true; claimedBy?: Reviewer; claimedByOthers?: Reviewer }> {
  if (claim === 'unclaimed') return { unclaimed: true };
  if (claim === 'mine') return { claimedBy: await requestReviewer(options, request) };
  if (claim === 'others') return { claimedByOthers: await requestReviewer(options, request) };
  return {};
}

/** The page of `records` (fetched with pageFilter), each shown with `view`. */
export function recordPage<T>(
  records: AssessmentRecord[],
  query: PageQuery,
  view: (record: AssessmentRecord) => T,
): RecordPage<T> {
  const page = records.slice(0, query.limit);
  const more = records.length > query.limit;
  const offset = query.offset ?? 0;
  return {
    data: page.map(view),
    page: {
      limit: query.limit,
      offset,
      next: more ? offset + query.limit : null,
      nextAfter: more ? page[page.length - 1].id : null,
    },
  };
}
