import { Transform, Type } from 'class-transformer';
import {
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

/** The largest page of the Review list. */
export const MAX_PAGE_SIZE = 100;

/** `GET /judgment/reviews?limit&offset&judgment` */
export class ListReviewsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = 20;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset: number = 0;

  /** Only records of this Judgment (its registered name). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  judgment?: string;
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
