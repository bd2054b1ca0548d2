import type { Question } from '../questions/question';
import { evidencePathsIn } from '../questions/question-text';
import { UntrustedText } from './evidence';
import { isShapeProbe, shapeProbe } from './shape-probe';

/** Whether a dotted path leads to a value: `present`, `missing`, or `unknown` (it passes through a run-time value). */
export type PathPresence = 'present' | 'missing' | 'unknown';

/** A question key and the backticked Evidence path its text names that the Evidence does not have. */
export interface UnresolvedEvidencePath {
  readonly key: string;
  readonly path: string;
}

/**
 * The backticked paths the Questions name (`` `request.explanation` ``) that `evidence` (prepared JSON, or a shape from
 * `evidenceShape()`) cannot have, in question order.
 */
export function unresolvedEvidencePaths(
  questions: ReadonlyMap<string, Question>,
  evidence: unknown,
): UnresolvedEvidencePath[] {
  return [...questions].flatMap(([key, question]) =>
    evidencePathsIn(question.text)
      .filter((path) => evidencePathPresence(evidence, path) === 'missing')
      .map((path) => ({ key, path })),
  );
}

/**
 * Follows a dotted path (`request.explanation`, list indexes as numbers) through Evidence, prepared JSON or a shape
 * read by `evidenceShape()`. A probe on the way makes the answer `unknown`.
 */
export function evidencePathPresence(evidence: unknown, path: string): PathPresence {
  let value: unknown = evidence;
  for (const segment of path.split('.')) {
    if (isShapeProbe(value)) return 'unknown';
    if (value === null || typeof value !== 'object' || value instanceof UntrustedText) return 'missing';
    if (Array.isArray(value)) {
      if (!/^\d+$/.test(segment) || Number(segment) >= value.length) return 'missing';
      value = value[Number(segment)];
    } else {
      if (!Object.hasOwn(value, segment)) return 'missing';
      value = (value as Record<string, unknown>)[segment];
    }
    if (value === undefined) return 'missing';
  }
  return isShapeProbe(value) ? 'unknown' : 'present';
}

/**
 * The Evidence a Judgment shows, read without a Subject: evidence() runs on `judgment` (built without one) seen
 * through a proxy that turns every missing property into a probe (its methods and set properties stay real), so the
 * object literal it returns gives the keys every Evidence of the class has. Null when evidence() cannot run that way
 * (the shape can then only be known at run time).
 */
export function evidenceShape(judgment: object): unknown {
  const evidence = (judgment as { evidence?: unknown }).evidence;
  if (typeof evidence !== 'function') return null;
  const seen = new Proxy(judgment, {
    get: (target, property, receiver) => {
      const value: unknown = Reflect.get(target, property, receiver);
      return value === undefined || value === null ? shapeProbe() : value;
    },
  });
  try {
    const shape: unknown = evidence.call(seen);
    return shape !== null && typeof shape === 'object' && !isShapeProbe(shape) ? shape : null;
  } catch {
    return null;
  }
}
