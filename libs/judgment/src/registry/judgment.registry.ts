import type { Type } from '@nestjs/common';
import {
  DuplicateJudgmentName,
  InvalidConfiguration,
  InvalidDecision,
  UnknownDecision,
  UnknownJudgmentName,
} from '../errors';
import { constructDecision } from '../decision/apply-decision';
import { type Decision, decisionMetadata, isDecision } from '../decision/decision.decorator';
import { type Judgment, isDecoratedJudgment, judgmentMetadata, judgmentName } from '../definition/judgment.decorator';

/**
 * Name ⇄ class for the registered Judgments and Decisions: how the queue worker, record rebuild and the CLI turn a
 * stored name back into a class. Filled by `JudgmentModule.forFeature([...])`.
 */
export class JudgmentRegistry {
  private readonly judgmentsByName = new Map<string, Type<Judgment>>();
  private readonly decisionsByName = new Map<string, Type<Decision>>();
  /** The instance of each Decision class a feature module provides (the app's provider, overridable in tests). */
  private readonly decisionInstances = new Map<Function, Decision>();
  /** Instances of Decision classes no feature module provides, made once each. */
  private readonly constructed = new Map<Function, Decision>();

  /** Registers Judgment and Decision classes; a Judgment's default Decision is registered with it. */
  register(classes: Iterable<Function>): void {
    for (const cls of classes) {
      if (isDecision(cls)) {
        this.add(this.decisionsByName, decisionMetadata(cls).name, cls, 'Decision');
      } else if (isJudgmentClass(cls)) {
        const metadata = judgmentMetadata(cls);
        this.add(this.judgmentsByName, metadata.name, cls as Type<Judgment>, 'Judgment');
        if (metadata.decision && isDecision(metadata.decision)) {
          this.add(this.decisionsByName, decisionMetadata(metadata.decision).name, metadata.decision, 'Decision');
        }
      } else {
        throw new InvalidConfiguration(
          `${cls.name || 'A class'} was given to JudgmentModule.forFeature(), but it is neither a Judgment ` +
            '(evidence() and questions() methods) nor a Decision (@Decision()).',
        );
      }
    }
  }

  /**
   * Keeps the instance a feature module's provider of each Decision class gave (the class is the provider's token, so
   * an app's or a test's override is what is kept; the first one of a class stays: a Decision is pure, so any two
   * instances decide alike).
   */
  provide(classes: readonly Function[], instances: readonly Decision[]): void {
    classes.forEach((cls, index) => {
      if (!this.decisionInstances.has(cls)) this.decisionInstances.set(cls, instances[index]);
    });
  }

  /**
   * The instance of a Decision class: the feature module's provider when `forFeature` registered the class (so apps
   * and tests can override it), else one instance made with no arguments (a Decision is pure and needs none); a
   * constructor that throws surfaces as InvalidDecision naming the class.
   */
  decisionOf<D extends Decision>(cls: Type<D>): D {
    const provided = this.decisionInstances.get(cls) ?? this.constructed.get(cls);
    if (provided) return provided as D;
    const made = constructDecision(cls);
    this.constructed.set(cls, made);
    return made;
  }

  /** The Judgment class registered under `name`. */
  judgment(name: string): Type<Judgment> {
    const cls = this.judgmentsByName.get(name);
    if (!cls) throw new UnknownJudgmentName(unknown('Judgment', name, this.judgmentsByName));
    return cls;
  }

  /** The Decision class registered under `name`. */
  decision(name: string): Type<Decision> {
    const cls = this.decisionsByName.get(name);
    if (!cls) throw new UnknownDecision(unknown('Decision', name, this.decisionsByName));
    return cls;
  }

  hasJudgment(name: string): boolean {
    return this.judgmentsByName.has(name);
  }

  hasDecision(name: string): boolean {
    return this.decisionsByName.has(name);
  }

  judgments(): Type<Judgment>[] {
    return [...this.judgmentsByName.values()];
  }

  decisions(): Type<Decision>[] {
    return [...this.decisionsByName.values()];
  }

  /**
   * Refuses a Decision that is the default Decision of other registered Judgments only (InvalidDecision naming them).
   * A Decision no registered Judgment names, or not a @Decision() class, passes: its compile-time type is the guard.
   */
  refuseForeignDecision(judgment: Judgment, decision: unknown): void {
    const cls = (decision as object | null)?.constructor;
    if (typeof cls !== 'function' || !isDecision(cls)) return;
    const owners = this.judgments().filter((owner) => judgmentMetadata(owner).decision === cls);
    if (owners.length === 0 || owners.includes(judgment.constructor as never)) return;
    throw new InvalidDecision(
      `${decisionMetadata(cls).name} is the Decision of ${owners.map((owner) => judgmentName(owner)).join(', ')}; it ` +
        `cannot decide an Assessment of ${judgmentName(judgment)}. Pass a Decision written for ` +
        `${judgmentName(judgment)} instead.`,
    );
  }

  private add<T extends Function>(map: Map<string, T>, name: string, cls: T, kind: string): void {
    const existing = map.get(name);
    if (existing === cls) return;
    if (existing) {
      throw new DuplicateJudgmentName(
        `Two ${kind}s are registered under the name "${name}": ${existing.name} and ` +
          `${cls.name}. Give one a distinct name with @${kind}({ name: '...' }).`,
      );
    }
    map.set(name, cls);
  }
}

/** Whether a class constructs Judgments (declared with @Judgment(), or evidence() and questions() on its prototype). */
export function isJudgmentClass(cls: Function): cls is Type<Judgment> {
  if (isDecoratedJudgment(cls)) return true;
  const proto = cls.prototype as Partial<Judgment> | undefined;
  return typeof proto?.evidence === 'function' && typeof proto?.questions === 'function';
}

function unknown(kind: string, name: string, map: Map<string, unknown>): string {
  const known = [...map.keys()];
  return (
    `No ${kind} is registered under the name "${name}". Registered: ${known.length ? known.join(', ') : 'none'}. ` +
    'Add it to JudgmentModule.forFeature([...]).'
  );
}
