import type { Judgment } from '../definition/judgment.decorator';
import { ExhaustedSequence, InvalidScript } from '../errors';
import { FakeAssessmentBuilder, type ScriptedAnswer, fakeAssessment } from './fake-assessment';

/** Answers as `FakeAssessmentBuilder.answers()` takes them: question key → answer. */
export type ScriptedAnswers = Readonly<Record<string, ScriptedAnswer>>;

/**
 * A script computed from the Judgment being assessed: answers, or a fake Assessment builder. Throwing
 * `new EngineFailed(message)` makes the attempt fail as if the Engine had.
 */
export type ScriptFunction = (judgment: any) => ScriptedAnswers | FakeAssessmentBuilder<any>;

/** One script: static answers, or a function of the Judgment. */
export type SingleScript = ScriptedAnswers | ScriptFunction;

/** Scripts used once each, in order, by the successive assessments of one Judgment. */
export class SequenceScript {
  readonly scripts: readonly SingleScript[];

  constructor(scripts: readonly SingleScript[]) {
    this.scripts = Object.freeze([...scripts]);
  }
}

/** What the fake Judge answers for one Judgment. */
export type Script = SingleScript | SequenceScript;

/** Scripts keyed by the Judgment's registered name (`@Judgment({ name })`, default the class name). */
export type JudgmentScripts = Readonly<Record<string, Script>>;

/** A sequence script: the n-th assessment of the Judgment uses the n-th script; one more throws ExhaustedSequence. */
export function sequence(...scripts: SingleScript[]): SequenceScript {
  return new SequenceScript(scripts);
}

/**
 * The fake Assessment builder a script gives for the `assessment`-th (1-based) assessment of a Judgment. Whatever the
 * script throws (EngineFailed included) propagates.
 */
export function runScript<J extends Judgment>(
  name: string,
  script: Script,
  judgment: J,
  assessment: number,
): FakeAssessmentBuilder<J> {
  let single: SingleScript | undefined = script as SingleScript;
  if (script instanceof SequenceScript) {
    single = script.scripts[assessment - 1];
    if (single === undefined) {
      throw new ExhaustedSequence(
        `The fake Judge's sequence for ${name} has ${script.scripts.length} script(s), but ${name} was assessed a ` +
          `#${assessment} time. Add a script to sequence(...) for every assessment the test makes.`,
      );
    }
  }
  const result = typeof single === 'function' ? single(judgment) : single;
  if (result instanceof FakeAssessmentBuilder) return result as FakeAssessmentBuilder<J>;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    throw new InvalidScript(
      `The script for ${name} gave ${Array.isArray(result) ? 'a list' : String(result)}: a script must be answers ` +
        '({ questionKey: answer }), a fake Assessment builder, or a function returning one of those.',
    );
  }
  return fakeAssessment(judgment).answers(result as Parameters<FakeAssessmentBuilder<J>['answers']>[0]);
}
