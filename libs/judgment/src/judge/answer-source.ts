import { Injectable } from '@nestjs/common';
import type { Judgment } from '../definition/judgment.decorator';
import type { Engine } from '../engines/engine.interface';
import type { Question } from '../questions/question';
import { EngineManager } from '../engines/engine.manager';

/**
 * Where the Judge gets the Engine that answers each attempt: by default the connections of the app's EngineManager.
 * The one seam at the Engine boundary: the testing kit's fake (`fakeJudge()`, `JudgmentTestingModule`) replaces this
 * provider with Engines that answer from scripts (declaring `scripted`), so faked Judgments run the Judge's own code:
 * recording, events, deciding.
 */
export abstract class AnswerSource {
  /**
   * The Engine for one attempt at `judgment` on `connection`, chosen before anything is asked: what this throws is
   * not an attempt (nothing is recorded or announced).
   */
  abstract engineFor(judgment: Judgment, connection: string): Engine;

  /** Builds the default connection and the named ones now, so configuration errors surface at startup. */
  abstract validate(connections: readonly string[]): void;

  /**
   * What `connection` cannot ask among these Questions, one sentence each (its driver's `refusals`), without any
   * network call; what startup and `judgment check` fail on. Scripted answers refuse nothing.
   */
  refusals(_connection: string, _questions: ReadonlyMap<string, Question>): readonly string[] {
    return [];
  }
}

/** The app's Engine connections, as configured in `engines`. */
@Injectable()
export class ConnectionAnswers extends AnswerSource {
  constructor(private readonly engines: EngineManager) {
    super();
  }

  engineFor(_judgment: Judgment, connection: string): Engine {
    return this.engines.connection(connection);
  }

  validate(connections: readonly string[]): void {
    this.engines.validate([this.engines.defaultConnectionName(), ...connections]);
  }

  override refusals(connection: string, questions: ReadonlyMap<string, Question>): readonly string[] {
    return this.engines.connection(connection).refusals?.(questions) ?? [];
  }
}
