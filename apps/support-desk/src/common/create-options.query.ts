import { IsIn, IsOptional } from 'class-validator';

/** `POST /refunds?dispatch=true` (likewise tickets and posts): queue the assessment instead of waiting for it. */
export class CreateOptionsQuery {
  @IsOptional()
  @IsIn(['true', 'false'])
  dispatch?: 'true' | 'false';

  get queued(): boolean {
    return this.dispatch === 'true';
  }
}
