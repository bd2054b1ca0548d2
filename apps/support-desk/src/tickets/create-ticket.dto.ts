import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** POST /tickets */
export class CreateTicketDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  subject!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(5000)
  body!: string;
}
