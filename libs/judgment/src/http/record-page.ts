import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { ListRecordsQuery } from './review.dto';

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
export function pageFilter(query: ListRecordsQuery) {
  return { judgment: query.judgment, limit: query.limit + 1, after: query.after, offset: query.offset };
}

/** The page of `records` (fetched with pageFilter), each shown with `view`. */
export function recordPage<T>(
  records: AssessmentRecord[],
  query: ListRecordsQuery,
  view: (record: AssessmentRecord) => T,
): RecordPage<T> {
  const page = records.slice(0, query.limit);
  const more = records.length > query.limit;
  return {
    data: page.map(view),
    page: {
      limit: query.limit,
      offset: query.offset,
      next: more ? query.offset + query.limit : null,
      nextAfter: more ? page[page.length - 1].id : null,
    },
  };
}
