import { HttpException, HttpStatus, Logger } from '@nestjs/common';
import {
  EngineBudgetExhausted,
  EngineFailed,
  EngineOverloaded,
  EngineRateLimited,
  InvalidClaim,
  InvalidEvidence,
  InvalidRecordQuery,
  InvalidResolution,
  InvalidReviewer,
  ReviewClaimConflict,
  ResolutionForbidden,
  SubjectNotFound,
  UnknownDecision,
  UnknownJudgmentName,
  UnknownRecord,
  UnrebuildableAssessment,
} from '../errors';

/** The stable error codes of the HTTP envelope. */
export type JudgmentErrorCode =
  'validation_error' | 'not_found' | 'forbidden' | 'conflict' | 'engine_failed' | 'internal_error';

/** Every error response of the package's HTTP adapter: `{ "error": { "code", "message", "details" } }`. */
export interface JudgmentErrorEnvelope {
  readonly error: {
    readonly code: JudgmentErrorCode;
    readonly message: string;
    readonly details: Record<string, unknown>;
  };
}

/** A request the ValidationPipe refused: the messages of each invalid field, by dotted path. */
export class RequestValidationFailed extends HttpException {
  constructor(readonly fields: Record<string, string[]>) {
    const names = Object.keys(fields);
    super(
      `The request is invalid: ${names.length === 1 ? names[0] : names.join(', ')} ` +
        `${names.length === 1 ? 'is' : 'are'} not acceptable (see details.fields).`,
      HttpStatus.BAD_REQUEST,
    );
  }
}

const CODE_OF_STATUS: Record<number, JudgmentErrorCode> = {
  400: 'validation_error',
  401: 'forbidden',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'validation_error',
};

/** The message every unexpected error shows (its detail goes to the log, never to the client). */
export const INTERNAL_ERROR_MESSAGE = 'The server failed to handle the request; the error was logged.';

/** Maps any thrown value to an HTTP status and the envelope. Unknown errors become a 500 `internal_error`. */
export function errorEnvelope(exception: unknown): { status: number; body: JudgmentErrorEnvelope } {
  const reply = (status: number, code: JudgmentErrorCode, message: string, details: Record<string, unknown> = {}) => ({
    status,
    body: { error: { code, message, details } },
  });
  if (exception instanceof RequestValidationFailed) {
    return reply(400, 'validation_error', exception.message, { fields: exception.fields });
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status >= 500) return reply(status, 'internal_error', INTERNAL_ERROR_MESSAGE);
    return reply(status, CODE_OF_STATUS[status] ?? 'validation_error', httpMessage(exception));
  }
  if (exception instanceof ResolutionForbidden) return reply(403, 'forbidden', exception.message);
  if (exception instanceof ReviewClaimConflict) {
    return reply(409, 'conflict', exception.message, {
      type: exception.name,
      holder: exception.holder,
      expiresAt: exception.expiresAt.toISOString(),
    });
  }
  if (exception instanceof UnknownRecord) return reply(404, 'not_found', exception.message, { type: exception.name });
  if (exception instanceof InvalidClaim || exception instanceof InvalidReviewer) {
    return reply(400, 'validation_error', exception.message, { type: exception.name });
  }
  // An unknown Decision means the server no longer knows the record's Decision: the record exists, so not a 404.
  if (
    exception instanceof InvalidResolution ||
    exception instanceof UnrebuildableAssessment ||
    exception instanceof UnknownDecision
  ) {
    return reply(409, 'conflict', exception.message, { type: exception.name });
  }
  if (exception instanceof SubjectNotFound || exception instanceof UnknownJudgmentName) {
    return reply(404, 'not_found', exception.message, { type: exception.name });
  }
  if (exception instanceof InvalidEvidence || exception instanceof InvalidRecordQuery) {
    return reply(400, 'validation_error', exception.message);
  }
  if (exception instanceof EngineFailed) {
    const retryLater = [EngineRateLimited, EngineOverloaded, EngineBudgetExhausted].some((t) => exception instanceof t);
    return reply(retryLater ? 503 : 502, 'engine_failed', exception.message, {
      type: exception.name,
      requestId: exception.requestId,
    });
  }
  return reply(500, 'internal_error', INTERNAL_ERROR_MESSAGE);
}

const logger = new Logger('JudgmentHttp');

/**
 * The one way the adapter answers an error (the JSON filter, the review page's filter, unreadable bodies): the status
 * and envelope of `errorEnvelope`, with an unexpected error's detail written to the log, never to the client.
 */
export function answerError(exception: unknown): { status: number; body: JudgmentErrorEnvelope } {
  const answer = errorEnvelope(exception);
  if (answer.status >= 500 && answer.body.error.code === 'internal_error') {
    logger.error(
      exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception),
      exception instanceof Error ? exception.stack : undefined,
    );
  }
  return answer;
}

/** An HttpException's message; ValidationPipe-style bodies carry a list of messages, joined here. */
function httpMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'object' && response !== null && 'message' in response) {
    const message = (response as { message: unknown }).message;
    if (Array.isArray(message)) return message.join('; ');
    if (typeof message === 'string') return message;
  }
  return exception.message;
}
