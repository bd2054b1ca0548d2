import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** POST /posts */
export class CreatePostDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  author!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(5000)
  body!: string;
}
