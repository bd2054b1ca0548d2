import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { RequestValidationFailed } from './error-envelope';

/**
 * The ValidationPipe of the package's controllers: class-validator DTOs, unknown fields refused, values transformed
 * to the DTO's types; a refusal becomes RequestValidationFailed (`validation_error`, messages by field).
 */
export function judgmentValidationPipe(): ValidationPipe {
  return new JudgmentValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new RequestValidationFailed(fieldMessages(errors)),
  });
}

/**
 * Refuses every field the DTO does not declare, alike. The whitelist alone never sees keys named like an object's
 * prototype members (`constructor`, `toString`, `valueOf`…): class-transformer skips them. They are listed with the
 * DTO's own refusals.
 */
class JudgmentValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const declared = metadata.metatype ? declaredFields(metadata.metatype) : null;
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    const unknown = declared && isObject ? Object.keys(value).filter((key) => !declared.has(key)) : [];
    const refused = Object.fromEntries(unknown.map((key) => [key, [`property ${key} should not exist`]]));
    let transformed: unknown;
    try {
      transformed = await super.transform(value, metadata);
    } catch (error) {
      // The DTO's own refusals and the unknown fields, reported together.
      if (error instanceof RequestValidationFailed) throw new RequestValidationFailed({ ...error.fields, ...refused });
      throw error;
    }
    if (unknown.length > 0) throw new RequestValidationFailed(refused);
    return transformed;
  }
}

/** The fields a DTO class declares with class-validator decorators (inherited ones included), or null for no DTO. */
function declaredFields(metatype: ArgumentMetadata['metatype']): ReadonlySet<string> | null {
  const fields = getMetadataStorage()
    .getTargetValidationMetadatas(metatype as new () => object, '', true, false)
    .map((field) => field.propertyName);
  return fields.length > 0 ? new Set(fields) : null;
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
