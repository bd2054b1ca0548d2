import { Transform, Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';

import { REVIEW_CAUSES, type ReviewCause } from '../assessment/awaiting-review';
import { REVIEW_SORTS, type ReviewSort } from '../records/record-queries.service';

/** The claim filters of the Review list: nobody's, the requesting reviewer's, someone else's. */
export const CLAIM_FILTERS = ['unclaimed', 'mine', 'others'] as const;
export type ClaimFilter = (typeof CLAIM_FILTERS)[number];

/** The largest page of the Review list. */
export const MAX_PAGE_SIZE = 100;

/** A page of records and its Judgment filter, paged by `after` only. */
class RecordPageQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = 20;

  /** Keyset pagination: only records with a greater id (the previous page's `page.nextAfter`). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  after?: number;

  /** Only records of this Judgment (its registered name). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  judgment?: string;
}

/** `GET /judgment/audits?limit&after&judgment` (or `offset` instead of `after`: slow on large tables) */
export class ListRecordsQuery extends RecordPageQuery {
  /** Skips this many records; the database walks each skipped one, so prefer `after`. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset: number = 0;
}

const oneOf = (field: string, values: readonly string[]) => ({
  message: `${field} must be one of ${values.join(', ')}`,
});

/**
 * `GET /judgment/reviews?limit&after&judgment&claim&reason&sort` (or `offset` instead of `after`, with the age order
 * only: slow on large tables)
 */
export class ListReviewsQuery extends ListRecordsQuery {
  /** `unclaimed`: nobody holds a live claim; `mine`: the requesting reviewer does; `others`: someone else does. */
  @IsOptional()
  @IsIn(CLAIM_FILTERS, oneOf('claim', CLAIM_FILTERS))
  claim?: ClaimFilter;

  /** Only records in Review for this cause. */
  @IsOptional()
  @IsIn(REVIEW_CAUSES, oneOf('reason', REVIEW_CAUSES))
  reason?: ReviewCause;

  /** `age` (oldest first, the default), `deadline` (nearest first), `confidence` (least confident first). */
  @IsOptional()
  @IsIn(REVIEW_SORTS, oneOf('sort', REVIEW_SORTS))
  sort?: ReviewSort;
}

/** An empty field of an HTML form (the filter form sends one for "any"): no filter. */
const emptyAsUnset = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/**
 * `GET /judgment/desk?limit&after&judgment&claim&reason&sort`: the review page's queue, paged by `after` only (an `offset` is
 * refused). Its filter form sends empty fields for any Judgment and any claim.
 */
export class ReviewQueueQuery extends RecordPageQuery {
  @Transform(emptyAsUnset)
  override judgment?: string;

  /** As the Review list's `claim`. */
  @Transform(emptyAsUnset)
  @IsOptional()
  @IsIn(CLAIM_FILTERS, oneOf('claim', CLAIM_FILTERS))
  claim?: ClaimFilter;

  /** As the Review list's `reason`. */
  @Transform(emptyAsUnset)
  @IsOptional()
  @IsIn(REVIEW_CAUSES, oneOf('reason', REVIEW_CAUSES))
  reason?: ReviewCause;

  /** As the Review list's `sort`. */
  @Transform(emptyAsUnset)
  @IsOptional()
  @IsIn(REVIEW_SORTS, oneOf('sort', REVIEW_SORTS))
  sort?: ReviewSort;
}

/** `:id` of a record route: plain decimal digits only (no sign, spaces, hex, exponent or fraction). */
export class RecordIdParams {
  @Transform(({ value }) => (typeof value === 'string' && /^[1-9][0-9]{0,30}$/.test(value) ? Number(value) : NaN))
  @IsInt({ message: 'id must be a record id: a whole number of 1 or more, in plain decimal digits' })
  @Min(1)
  id!: number;
}

/** A non-blank string or a number: an Outcome of a string or numeric enum. */
function IsOutcomeValue(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isOutcomeValue',
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.trim() !== '' && value.length <= 255) ||
          (typeof value === 'number' && Number.isFinite(value)),
        defaultMessage: () => 'resolution must be one of the Outcomes of the record (a non-blank string or a number)',
      },
    },
    options,
  );
}

/** `POST /judgment/records/:id/resolve` */
export class ResolveReviewDto {
  /** The reviewer's Outcome: a member of the record's Outcome enum that does not itself require Review. */
  @IsOutcomeValue()
  resolution!: string | number;
}

/** `POST /judgment/records/:id/claim` and `/renew` */
export class ClaimReviewDto {
  /** The lease: `'15m'`, `'90s'`, or milliseconds; 1 second to 24 hours. Default 15 minutes. */
  @IsOptional()
  @ValidateBy({
    name: 'isDuration',
    validator: {
      validate: (value: unknown) =>
        (typeof value === 'string' && value.trim() !== '' && value.length <= 64) ||
        (typeof value === 'number' && Number.isFinite(value)),
      defaultMessage: () => "ttl must be a duration like '15m' or a number of milliseconds",
    },
  })
  ttl?: string | number;
}

/** A POST form of the review page: its CSRF token (checked by CsrfGuard). */
export class ReviewPageForm {
  @IsString()
  _csrf!: string;
}

/** The review page's resolve form: the Outcome chosen (empty until one is), and the version of the case shown. */
export class ReviewPageResolveForm extends ReviewPageForm {
  /** Checked by the page, which answers an empty or unknown one with the case and what to do. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  resolution?: string;

  /** The record's last update (ms) as the page showed it: a case that changed since is shown again, not resolved. */
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value))
  @IsInt({ message: 'seen must be the version of the case the page showed (a whole number)' })
  seen?: number;

  /** `1` (the keyboard path): after resolving, open the next unclaimed case. */
  @IsOptional()
  @IsIn(['', '1'])
  advance?: '' | '1';
}

/** What the last action on the record page did, shown on the page it redirects to (post, redirect, get). */
export const RECORD_PAGE_DONE = ['claimed', 'renewed', 'released', 'resolved'] as const;

/** `GET /judgment/desk/records/:id?done=` */
export class ReviewRecordQuery {
  @IsOptional()
  @IsIn(RECORD_PAGE_DONE)
  done?: (typeof RECORD_PAGE_DONE)[number];

  /** The case resolved just before this one (the keyboard path's auto-advance), to confirm it here. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  resolved?: number;
}

/** `GET /judgment/desk/next?after=&claim=unclaimed&resolved=`: the next case in the queue after `after`. */
export class NextCaseQuery {
  @Type(() => Number)
  @IsInt()
  @Min(0)
  after!: number;

  @IsOptional()
  @IsIn(['unclaimed'])
  claim?: 'unclaimed';

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  resolved?: number;
}

/** `GET /judgment/desk/stats?judgment=`: reviewer agreement, of one Judgment when named. */
export class AgreementStatsQuery {
  /** Only the votes on records of this Judgment (its registered name); empty means all. */
  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  judgment?: string;
}
