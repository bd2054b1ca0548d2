import { InvalidJudgment } from '../errors';

/**
 * The names of the thresholds a Decision declares (`readonly thresholds = { reject: 0.8, approve: 0.3 }` gives
 * `'reject' | 'approve'`); any string when the Decision's type does not say.
 */
export type ThresholdName<D> = D extends { readonly thresholds?: infer T }
  ? T extends Readonly<Record<string, number>>
    ? string extends keyof T
      ? string
      : keyof T & string
    : string
  : string;

/**
 * One tier of an escalation cascade: the connection asked at this tier, and the thresholds its answers are decided
 * with (named ones replace the Decision's own values; unnamed ones keep them).
 */
export interface CascadeTier<D = unknown> {
  /** A connection of the module's `engines` (each connection at most once per cascade). */
  readonly connection: string;
  /** Threshold values of the Judgment's Decision for this tier; the Decision's own values when omitted. */
  readonly thresholds?: Readonly<Partial<Record<ThresholdName<D>, number>>>;
}

/** Where one attempt stands in its Judgment's cascade: what its record notes in `provenance_details.cascade`. */
export interface CascadeStep {
  /** 1 for the first tier. */
  readonly tier: number;
  /** How many tiers the cascade has. */
  readonly of: number;
  readonly connection: string;
  /** The record of the tier before, whose answers were decided in the Review band; null for the first tier. */
  readonly escalatedFrom: number | null;
}

/**
 * Checks what a cascade declaration can be checked for without the module (at decoration): at least two tiers, each
 * a non-blank connection named once, thresholds that are finite numbers, a default Decision to decide with, and no
 * `engine` beside it (the first tier is the connection asked first).
 */
export function checkedCascade(
  name: string,
  cascade: unknown,
  options: { decision: unknown; engine: unknown },
): readonly CascadeTier[] {
  const where = `@Judgment({ cascade }) of ${name}`;
  if (!Array.isArray(cascade) || cascade.length < 2) {
    throw new InvalidJudgment(
      `${where} must list at least two tiers, cheapest first, e.g. [{ connection: 'cheap' }, { connection: 'strong' }]; ` +
        `with one connection, use @Judgment({ engine }) instead.`,
    );
  }
  if (options.decision === undefined) {
    throw new InvalidJudgment(
      `${where} needs a default Decision: add decision: YourDecision, whose Review band sends a case to the next tier.`,
    );
  }
  if (options.engine !== undefined) {
    throw new InvalidJudgment(
      `${where} also names engine ${JSON.stringify(options.engine)}: remove engine, the first tier's connection is the ` +
        'one asked first.',
    );
  }
  const seen = new Set<string>();
  return Object.freeze(
    cascade.map((tier: unknown, index): CascadeTier => {
      const at = `${where}, tier ${index + 1}`;
      const connection = (tier as { connection?: unknown } | null)?.connection;
      if (typeof connection !== 'string' || connection.trim() === '') {
        throw new InvalidJudgment(`${at} needs { connection: '<name of an Engine connection>' }.`);
      }
      if (seen.has(connection)) {
        throw new InvalidJudgment(
          `${at} names connection "${connection}" again: each tier must ask another connection (a tier asking the ` +
            'same one again would get the same answers).',
        );
      }
      seen.add(connection);
      const thresholds = (tier as { thresholds?: unknown }).thresholds;
      if (thresholds === undefined) return Object.freeze({ connection });
      if (thresholds === null || typeof thresholds !== 'object' || Array.isArray(thresholds)) {
        throw new InvalidJudgment(`${at} ("${connection}") has thresholds that are not an object of named numbers.`);
      }
      for (const [key, value] of Object.entries(thresholds)) {
        if (typeof value !== 'number' || !Number.isFinite(value)) {
          throw new InvalidJudgment(
            `${at} ("${connection}") has thresholds.${key} = ${String(value)}: give a finite number.`,
          );
        }
      }
      return Object.freeze({ connection, thresholds: Object.freeze({ ...thresholds }) });
    }),
  );
}

/**
 * Checks a cascade's thresholds against the thresholds its Decision declares (at startup, when the Decision's
 * instance is known): every named threshold must be one of them. Returns the problems, one sentence each.
 */
export function cascadeThresholdProblems(
  name: string,
  cascade: readonly CascadeTier[],
  decision: { name: string; thresholds: Readonly<Record<string, number>> | null; reviewOutcomes: number },
): string[] {
  const problems: string[] = [];
  if (decision.reviewOutcomes === 0) {
    problems.push(
      `The cascade of ${name} can never escalate: its Decision ${decision.name} declares no Review Outcomes ` +
        '(add review: [...] to its @Decision(), the band that sends a case to the next tier).',
    );
  }
  const declared = decision.thresholds === null ? [] : Object.keys(decision.thresholds);
  cascade.forEach((tier, index) => {
    for (const key of Object.keys(tier.thresholds ?? {})) {
      if (declared.includes(key)) continue;
      problems.push(
        `The cascade of ${name}, tier ${index + 1} ("${tier.connection}"), names threshold "${key}", which ` +
          `${decision.name} does not declare (${declared.length === 0 ? 'it declares none' : `it declares ${declared.join(', ')}`}).`,
      );
    }
  });
  return problems;
}

/** The cascade place a record notes in `provenance_details.cascade`, or null (no cascade, or not readable). */
export function cascadeStepOf(record: { provenanceDetails: Record<string, unknown> | null }): CascadeStep | null {
  const noted = record.provenanceDetails?.cascade as Partial<CascadeStep> | undefined;
  if (!noted || typeof noted !== 'object') return null;
  const { tier, of, connection, escalatedFrom } = noted;
  if (!Number.isSafeInteger(tier) || !Number.isSafeInteger(of) || typeof connection !== 'string') return null;
  return {
    tier: tier as number,
    of: of as number,
    connection,
    escalatedFrom: typeof escalatedFrom === 'number' ? escalatedFrom : null,
  };
}
