import { IsIn, IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, MaxLength, Min } from 'class-validator';

/** POST /refunds */
export class CreateRefundDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  item!: string;

  @IsNumber()
  @Min(0)
  amountEur!: number;

  @IsString()
  @IsNotEmpty()
  @MaxLength(5000)
  explanation!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  refundsThisYear?: number;

  @IsOptional()
  @IsIn(['en', 'it', 'de', 'fr', 'es'])
  locale?: string;
}
