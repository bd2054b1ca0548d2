import { type CanActivate, type ExecutionContext, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { JUDGMENT_HTTP_OPTIONS } from './judgment-http.module-definition';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';

/** Lets a request read records only when the app's `canView(request)` says so; with no canView nobody may. */
@Injectable()
export class CanViewRecordsGuard implements CanActivate {
  constructor(@Inject(JUDGMENT_HTTP_OPTIONS) private readonly options: JudgmentHttpOptions) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.options.canView) {
      throw new ForbiddenException(
        'Reading assessment records is denied: JudgmentHttpModule has no canView option. Pass ' +
          'canView(request) to JudgmentHttpModule.forRoot() to say who may read them.',
      );
    }
    const request = context.switchToHttp().getRequest<JudgmentHttpRequest>();
    if ((await this.options.canView(request)) !== true) {
      throw new ForbiddenException('This request may not read assessment records.');
    }
    return true;
  }
}
