import type { Type } from '@nestjs/common';
import type { Judgment } from './judgment.decorator';

/**
 * A Judgment of `cls` made without its Subject, to read what does not depend on one (its Questions): the constructor
 * called with no arguments, or, when that throws, an object of the class whose constructor never ran.
 */
export function judgmentWithoutSubject(cls: Type<Judgment>): Judgment {
  try {
    return new cls();
  } catch {
    return Object.create(cls.prototype as object) as Judgment;
  }
}
