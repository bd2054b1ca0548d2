import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { RequestValidationFailed } from './error-envelope';

/**
 * The ValidationPipe of the package's controllers: class-validator DTOs, unknown fields refused, values transformed
 * to the DTO's types; a refusal becomes RequestValidationFailed (`validation_error`, messages by field).
 */
export function judgmentValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new RequestValidationFailed(fieldMessages(errors)),
  });
}

/** The constraint messages of each invalid field, keyed by dotted path (nested DTOs included). */
export function fieldMessages(errors: readonly ValidationError[], parent = ''): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const error of errors) {
    const path = parent === '' ? error.property : `${parent}.${error.property}`;
    if (error.constraints) fields[path] = Object.values(error.constraints);
    Object.assign(fields, fieldMessages(error.children ?? [], path));
  }
  return fields;
}
