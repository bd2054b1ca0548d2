import { InvalidQuestion } from '../errors';
import { describe, requireQuestionText } from './question-text';

/** The escape option's label, reserved when `.orNone()` is used. */
export const NONE_LABEL = 'none';
/** What the Engine is told the escape option means. */
export const NONE_DESCRIPTION = 'None of the options fits the evidence';

export const MIN_LABELS = 2;
export const MAX_LABELS = 255;

/** A Question answered with a probability for each label of a closed set. */
export class Classification<L extends string = string, N extends boolean = boolean> {
  readonly kind = 'classification' as const;
  /** Declared labels in declaration order (without the escape option). */
  readonly labels: readonly L[];
  /** Whether the escape option `none` is offered. */
  readonly allowsNone: N;
  private readonly descriptions: ReadonlyMap<string, string | null>;

  private constructor(
    readonly text: string,
    entries: ReadonlyArray<readonly [L, string | null]>,
    allowsNone: N,
  ) {
    this.labels = Object.freeze(entries.map(([label]) => label));
    this.descriptions = new Map(entries);
    this.allowsNone = allowsNone;
    Object.freeze(this);
  }

  /**
   * A Classification over `labels`: a list (`Object.values(MyEnum)` works) or a label → description map
   * (`Record<MyEnum, string>` works). A TS enum object itself is read as a map, so pass `Object.values(MyEnum)`.
   */
  static of<const L extends string>(
    text: string,
    labels: readonly L[] | Readonly<Record<L, string | null>>,
  ): Classification<L, false> {
    requireQuestionText(text, 'A Classification');
    const entries = readLabels<L>(labels);
    if (entries.length < MIN_LABELS) {
      throw new InvalidQuestion(
        `A Classification needs at least ${MIN_LABELS} labels; ${entries.length} given. ` +
          'Use a Likelihood for a yes/no question.',
      );
    }
    if (entries.length > MAX_LABELS) {
      throw new InvalidQuestion(
        `A Classification accepts at most ${MAX_LABELS} labels; ${entries.length} given. ` +
          'Group the labels, or ask a Likelihood Set.',
      );
    }
    return new Classification(text, entries, false);
  }

  /**
   * A copy that also offers the Engine a `none` option ("None of the options fits the evidence"). When it wins, the
   * answer's `label` is null and `probabilityOf('none')` carries its mass.
   */
  orNone(): Classification<L, true> {
    if (this.descriptions.has(NONE_LABEL)) {
      throw new InvalidQuestion(
        `"${NONE_LABEL}" is reserved for the escape option of orNone(); rename the declared "${NONE_LABEL}" label.`,
      );
    }
    if (this.labels.length >= MAX_LABELS) {
      throw new InvalidQuestion(
        `A Classification accepts at most ${MAX_LABELS} options, and orNone() adds "${NONE_LABEL}" as one; ` +
          `${this.labels.length} labels given. Declare at most ${MAX_LABELS - 1} labels, or group them.`,
      );
    }
    return new Classification(this.text, [...this.descriptions] as Array<[L, string | null]>, true);
  }

  /** Every option the Engine is offered, in order: the labels, then `none` when allowed. */
  options(): readonly string[] {
    return this.allowsNone ? [...this.labels, NONE_LABEL] : this.labels;
  }

  /** Option → description (null for a self-explanatory label), in order, including the escape option. */
  criteria(): Array<[string, string | null]> {
    const entries: Array<[string, string | null]> = [...this.descriptions];
    if (this.allowsNone) entries.push([NONE_LABEL, NONE_DESCRIPTION]);
    return entries;
  }
}

function readLabels<L extends string>(labels: unknown): Array<[L, string | null]> {
  if (Array.isArray(labels)) {
    const seen = new Set<string>();
    return labels.map((label, index) => {
      if (typeof label !== 'string') {
        throw new InvalidQuestion(
          `Classification labels must be strings; label ${index} is ${describe(label)}. ` +
            'For a numeric enum, map its members to string labels.',
        );
      }
      if (label.trim() === '') throw new InvalidQuestion(`Classification label ${index} is blank.`);
      if (seen.has(label)) {
        throw new InvalidQuestion(`A Classification's labels must be distinct; "${label}" is repeated.`);
      }
      seen.add(label);
      return [label as L, null];
    });
  }
  if (labels !== null && typeof labels === 'object') {
    return Object.entries(labels).map(([label, description]) => {
      if (description !== null && typeof description !== 'string') {
        throw new InvalidQuestion(
          `The description of Classification label "${label}" must be a string or null; got ${describe(description)}.`,
        );
      }
      if (label.trim() === '') throw new InvalidQuestion('A Classification label cannot be blank.');
      return [label as L, description];
    });
  }
  throw new InvalidQuestion(
    `Classification labels must be a list or a label → description map; got ${describe(labels)}.`,
  );
}
