import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { JudgmentHttpOptions } from './judgment-http.options';

export const {
  ConfigurableModuleClass: JudgmentHttpConfigurableModule,
  MODULE_OPTIONS_TOKEN: JUDGMENT_HTTP_OPTIONS,
  OPTIONS_TYPE: JUDGMENT_HTTP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: JUDGMENT_HTTP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<JudgmentHttpOptions>({ moduleName: 'JudgmentHttp' })
  .setClassMethodName('forRoot')
  .build();
