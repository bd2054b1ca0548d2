import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { JudgmentHttpOptions } from './judgment-http.options';

/** Static options of `JudgmentHttpModule.forRoot()`: they decide which controllers are mounted. */
export interface JudgmentHttpExtras {
  /** Serve the review page (server-rendered HTML) at `/judgment/desk` beside the JSON API. Default false. */
  ui?: boolean;
}

export const {
  ConfigurableModuleClass: JudgmentHttpConfigurableModule,
  MODULE_OPTIONS_TOKEN: JUDGMENT_HTTP_OPTIONS,
  OPTIONS_TYPE: JUDGMENT_HTTP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: JUDGMENT_HTTP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<JudgmentHttpOptions>({ moduleName: 'JudgmentHttp' })
  .setClassMethodName('forRoot')
  .setExtras<JudgmentHttpExtras>({ ui: false }, (definition) => definition)
  .build();
