/**
 * What a Decision read and compared through an Assessment's answers while it ran: the raw material of a decision
 * trace (decision/decision-trace.ts names thresholds and finds the rule that fired).
 *
 * Deciding is synchronous, so one sink at a time is active: `traceReadings` installs it around the Decision's
 * decide() and restores the previous one after, whatever happens. With no sink active every hook is a null check.
 * The Decision itself stays pure: it neither sees nor controls the recording.
 */

/** One answer read through the Assessment (or a derived one: a set's label, a set's max). */
export interface TracedRead {
  /** The question key; `key.label` for a Likelihood Set label or a Classification label's probability. */
  readonly key: string;
  readonly kind: 'likelihood' | 'rating' | 'classification' | 'likelihood_set' | 'probability';
  /** The number a threshold compares (probability, expected level), the winning label, or null for a set. */
  readonly value: number | string | null;
}

/** One comparison made through an answer's methods. */
export interface TracedComparison {
  readonly key: string;
  /** `above` is ≥, `below` is <, `is` asks whether a label is the Classification's most probable one. */
  readonly op: 'above' | 'below' | 'is';
  /** The compared value (the label's probability for `is`). */
  readonly value: number;
  /** The threshold compared with; null for `is`. */
  readonly threshold: number | null;
  /** The label asked about by `is`, or read. */
  readonly label?: string;
  /** True when the Decision read the `label` (a test that holds, `key is <label>`), not asked `is(label)`. */
  readonly read?: true;
  readonly result: boolean;
}

/** Everything one run of decide() read and compared, in order. */
export interface Readings {
  readonly reads: TracedRead[];
  readonly comparisons: TracedComparison[];
}

class ReadingSink implements Readings {
  readonly reads: TracedRead[] = [];
  readonly comparisons: TracedComparison[] = [];
  /** The key each answer object was read under (answers are immutable values, shared by reads of the same key). */
  readonly keys = new Map<object, string>();
}

let active: ReadingSink | null = null;

/**
 * Runs `decide` with a reading sink active and returns its result with what it read and compared. When `decide`
 * throws, the error goes to the caller and the partial readings are dropped.
 */
export function traceReadings<T>(decide: () => T): { result: T; readings: Readings } {
  const previous = active;
  const sink = new ReadingSink();
  active = sink;
  try {
    return { result: decide(), readings: sink };
  } finally {
    active = previous;
  }
}

/** Runs `compute` with no sink active (a purity re-run must not add to the readings). */
export function untraced<T>(compute: () => T): T {
  const previous = active;
  active = null;
  try {
    return compute();
  } finally {
    active = previous;
  }
}

/** Whether a sink is active (so callers skip building what they would note). */
export function isTracing(): boolean {
  return active !== null;
}

/** Notes that `answer` was read under `key` (first read of a key only, so repeated reads stay one entry). */
export function noteRead(answer: object, key: string, kind: TracedRead['kind'], value: TracedRead['value']): void {
  const sink = active;
  if (sink === null || sink.keys.has(answer)) return;
  sink.keys.set(answer, key);
  sink.reads.push({ key, kind, value });
}

/** Notes a number read under `key` that the Decision compares itself (e.g. `probabilityOf(label)`). */
export function noteValue(key: string, value: number): void {
  const sink = active;
  if (sink === null || sink.reads.some((read) => read.key === key)) return;
  sink.reads.push({ key, kind: 'probability', value });
}

/** Notes a threshold comparison made on `answer` (ignored when the answer was not read through the Assessment). */
export function noteComparison(
  answer: object,
  op: 'above' | 'below',
  value: number,
  threshold: number,
  result: boolean,
): void {
  const sink = active;
  if (sink === null) return;
  const key = sink.keys.get(answer);
  if (key !== undefined) sink.comparisons.push({ key, op, value, threshold, result });
}

/**
 * Notes that the Decision read a Classification's `label` (the winning label, `none` for the escape option): a test
 * that holds, `key is <label>`. A read right after the same read is not noted again (`label === null ? … : label`
 * is one test); a read after other comparisons is, so the trace sees where the label decided.
 */
export function noteLabelRead(answer: object, label: string, probability: number): void {
  const sink = active;
  if (sink === null) return;
  const key = sink.keys.get(answer);
  if (key === undefined) return;
  const last = sink.comparisons.at(-1);
  if (last?.read === true && last.key === key) return;
  sink.comparisons.push({ key, op: 'is', value: probability, threshold: null, label, read: true, result: true });
}

/** Notes a Classification `is(label)` test. */
export function noteLabelTest(answer: object, label: string, probability: number, result: boolean): void {
  const sink = active;
  if (sink === null) return;
  const key = sink.keys.get(answer);
  if (key !== undefined) sink.comparisons.push({ key, op: 'is', value: probability, threshold: null, label, result });
}
