import { BadRequestException, ConflictException, HttpException, NotFoundException } from '@nestjs/common';
import { UnknownDecision, UnknownJudgmentName } from '../errors';
import {
  EngineBudgetExhausted,
  EngineFailed,
  EngineOverloaded,
  EngineUnauthorized,
  InvalidClaim,
  InvalidEvidence,
  InvalidQuestion,
  ReviewClaimConflict,
  UnknownRecord,
  InvalidResolution,
  ResolutionForbidden,
  SubjectNotFound,
  UnrebuildableAssessment,
} from '../errors';
import { INTERNAL_ERROR_MESSAGE, RequestValidationFailed, errorEnvelope } from './error-envelope';

const coded = (exception: unknown) => {
  const { status, body } = errorEnvelope(exception);
  return { status, code: body.error.code };
};

describe('the error envelope', () => {
  it('a refused DTO is validation_error with the messages of each field', () => {
    const { status, body } = errorEnvelope(new RequestValidationFailed({ resolution: ['resolution is blank'] }));
    expect(status).toBe(400);
    expect(body.error).toEqual({
      code: 'validation_error',
      message: 'The request is invalid: resolution is not acceptable (see details.fields).',
      details: { fields: { resolution: ['resolution is blank'] } },
    });
  });

  it("Nest's HTTP exceptions keep their status and get the code of it", () => {
    expect(coded(new BadRequestException('bad'))).toEqual({ status: 400, code: 'validation_error' });
    expect(coded(new NotFoundException('gone'))).toEqual({ status: 404, code: 'not_found' });
    expect(coded(new ConflictException('twice'))).toEqual({ status: 409, code: 'conflict' });
    expect(coded(new HttpException('teapot', 418))).toEqual({ status: 418, code: 'validation_error' });
    expect(coded(new HttpException('down', 503))).toEqual({ status: 503, code: 'internal_error' });
  });

  it('Review errors: a refused reviewer is forbidden, an inapplicable Resolution or rebuild a conflict', () => {
    expect(coded(new ResolutionForbidden('no'))).toEqual({ status: 403, code: 'forbidden' });
    expect(coded(new InvalidResolution('resolved'))).toEqual({ status: 409, code: 'conflict' });
    expect(coded(new UnrebuildableAssessment('changed'))).toEqual({ status: 409, code: 'conflict' });
    expect(coded(new SubjectNotFound('deleted'))).toEqual({ status: 404, code: 'not_found' });
    expect(coded(new UnknownJudgmentName('typo'))).toEqual({ status: 404, code: 'not_found' });
  });

  it('claims: a conflict is 409 with the holder and expiry, an unknown record 404, a bad ttl 400', () => {
    const expiresAt = new Date('2026-12-01T02:00:00.000Z');
    const { status, body } = errorEnvelope(
      new ReviewClaimConflict(7, { type: 'staff', id: 'ann' }, expiresAt, 'claimed'),
    );
    expect(status).toBe(409);
    expect(body.error.code).toBe('conflict');
    expect(body.error.details).toEqual({
      type: 'ReviewClaimConflict',
      holder: { type: 'staff', id: 'ann' },
      expiresAt: '2026-12-01T02:00:00.000Z',
    });
    expect(body.error.message).toContain('Record #7 is claimed by staff #ann until 2026-12-01T02:00:00.000Z');
    expect(coded(new UnknownRecord(7))).toEqual({ status: 404, code: 'not_found' });
    expect(coded(new InvalidClaim('ttl'))).toEqual({ status: 400, code: 'validation_error' });
  });

  it('a record whose Decision this server no longer knows is a conflict, not a missing record', () => {
    expect(coded(new UnknownDecision('renamed'))).toEqual({ status: 409, code: 'conflict' });
  });

  it('Engine failures are engine_failed with their type and request id; "try later" ones are 503', () => {
    const failed = errorEnvelope(new EngineUnauthorized('401 from jev', { requestId: 'req_1' }));
    expect(failed).toEqual({
      status: 502,
      body: {
        error: {
          code: 'engine_failed',
          message: '401 from jev',
          details: { type: 'EngineUnauthorized', requestId: 'req_1' },
        },
      },
    });
    expect(coded(new EngineFailed('timeout'))).toEqual({ status: 502, code: 'engine_failed' });
    expect(coded(new EngineOverloaded('529'))).toEqual({ status: 503, code: 'engine_failed' });
    expect(coded(new EngineBudgetExhausted('spent'))).toEqual({ status: 503, code: 'engine_failed' });
  });

  it('invalid Evidence from the request is validation_error', () => {
    expect(coded(new InvalidEvidence('note', 'holds a lone UTF-16 surrogate'))).toEqual({
      status: 400,
      code: 'validation_error',
    });
  });

  it('anything else is internal_error, and its message never reaches the client', () => {
    for (const error of [new Error('password=hunter2'), new InvalidQuestion('blank'), 'thrown string']) {
      const { status, body } = errorEnvelope(error);
      expect({ status, body }).toEqual({
        status: 500,
        body: { error: { code: 'internal_error', message: INTERNAL_ERROR_MESSAGE, details: {} } },
      });
    }
  });
});
