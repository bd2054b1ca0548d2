import { ForbiddenException } from '@nestjs/common';
import type { Reviewer } from '../persistence/reviewer';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';

/** The reviewer a request speaks for: the app's `reviewerFrom(request)`, else `request.user` (Passport); or null. */
export async function optionalReviewer(
  options: JudgmentHttpOptions,
  request: JudgmentHttpRequest,
): Promise<Reviewer | null> {
  const reviewer = options.reviewerFrom ? await options.reviewerFrom(request) : (request.user ?? null);
  return reviewer === null || reviewer === undefined ? null : (reviewer as Reviewer);
}

/** The reviewer a request speaks for (see optionalReviewer). No reviewer is a 403 `forbidden`, so nothing is claimed or resolved on nobody's behalf. */
export async function requestReviewer(options: JudgmentHttpOptions, request: JudgmentHttpRequest): Promise<Reviewer> {
  const reviewer = await optionalReviewer(options, request);
  if (reviewer === null) {
    throw new ForbiddenException(
      'The request names no reviewer: authenticate it, or tell JudgmentHttpModule how to find the reviewer ' +
        'with the reviewerFrom(request) option.',
    );
  }
  return reviewer;
}
