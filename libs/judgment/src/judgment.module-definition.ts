import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { JudgmentModuleOptions } from './judgment.options';
import type { JudgmentQueueOptions } from './queue/queue.options';

/** Static options of `JudgmentModule.forRoot()`: they decide which modules are imported, so they cannot be async. */
export interface JudgmentModuleExtras {
  /** Accepted for compatibility: the module is always global, like @nestjs/typeorm's core. */
  isGlobal?: boolean;
  /** BullMQ queueing (off by default: `dispatch()` runs inline). */
  queue?: JudgmentQueueOptions;
  /** The TypeORM data source name, or false when the app has no TypeORM (then persistence must be disabled). */
  dataSource?: string | false;
}

export const {
  ConfigurableModuleClass: JudgmentConfigurableModule,
  MODULE_OPTIONS_TOKEN,
  OPTIONS_TYPE: JUDGMENT_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: JUDGMENT_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<JudgmentModuleOptions>({ moduleName: 'Judgment' })
  .setClassMethodName('forRoot')
  .setExtras<JudgmentModuleExtras>(
    { isGlobal: false, queue: undefined, dataSource: undefined },
    (definition, extras) => ({
      ...definition,
      global: extras.isGlobal,
    }),
  )
  .build();
