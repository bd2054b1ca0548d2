import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { JudgmentModuleExtras, JudgmentModuleOptions } from './judgment.options';

export type { JudgmentModuleExtras } from './judgment.options';

export const {
  ConfigurableModuleClass: JudgmentConfigurableModule,
  MODULE_OPTIONS_TOKEN,
  OPTIONS_TYPE: JUDGMENT_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: JUDGMENT_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<JudgmentModuleOptions>({ moduleName: 'Judgment' })
  .setClassMethodName('forRoot')
  .setExtras<JudgmentModuleExtras>(
    { queue: undefined, dataSource: undefined, resolutionPolicy: undefined, driverClasses: undefined },
    (definition) => definition,
  )
  .build();
