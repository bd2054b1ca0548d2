import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { type Decision, isDecision } from './decision/decision.decorator';
import { judgmentMetadata } from './definition/judgment.decorator';
import { JudgmentRegistry, isJudgmentClass } from './registry/judgment.registry';
import { JudgmentCoreModule, JudgmentRegistryModule } from './judgment-core.module';
import { JUDGMENT_ASYNC_OPTIONS_TYPE, JUDGMENT_OPTIONS_TYPE } from './judgment.module-definition';

export { JudgmentRegistryModule } from './judgment-core.module';

/** Registers Judgments and Decisions of one feature module. */
@Module({})
export class JudgmentFeatureModule {}

/**
 * The module: `JudgmentModule.forRoot(options)` (or `forRootAsync`) once in the app, and
 * `JudgmentModule.forFeature([Judgments..., Decisions...])` wherever Judgments are declared. The app owns TypeORM,
 * EventEmitter and BullMQ: it imports their forRoot; this module only registers features with them. The services
 * live in the global JudgmentCoreModule it imports, so every module of the app injects them.
 */
@Module({})
export class JudgmentModule {
  static forRoot(options: typeof JUDGMENT_OPTIONS_TYPE): DynamicModule {
    return { module: JudgmentModule, imports: [JudgmentCoreModule.forRoot(options)] };
  }

  static forRootAsync(options: typeof JUDGMENT_ASYNC_OPTIONS_TYPE): DynamicModule {
    return { module: JudgmentModule, imports: [JudgmentCoreModule.forRootAsync(options)] };
  }

  /** Registers Judgment and Decision classes by name; Decisions become providers, so tests can override them. */
  static forFeature(classes: Function[]): DynamicModule {
    const decisions = new Set<Type>();
    for (const cls of classes) {
      if (isDecision(cls)) decisions.add(cls as Type);
      else if (isJudgmentClass(cls)) {
        const decision = judgmentMetadata(cls).decision;
        if (decision && isDecision(decision)) decisions.add(decision);
      }
    }
    // The feature's Decisions are injected here, so the registry hands out the app's (or a test's) providers.
    const registration: Provider = {
      provide: Symbol(`JudgmentFeature(${classes.map((c) => c.name).join(', ')})`),
      useFactory: (registry: JudgmentRegistry, ...instances: Decision[]) => {
        registry.register(classes);
        registry.provide([...decisions], instances);
      },
      inject: [JudgmentRegistry, ...decisions],
    };
    return {
      module: JudgmentFeatureModule,
      imports: [JudgmentRegistryModule],
      providers: [registration, ...decisions],
      exports: [...decisions],
    };
  }
}
