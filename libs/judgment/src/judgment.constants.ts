/** Injection token of the resolved JudgmentModule options. */
export { MODULE_OPTIONS_TOKEN as JUDGMENT_MODULE_OPTIONS } from './judgment.module-definition';

/** Injection token of the static extras given to `JudgmentModule.forRoot()` (isGlobal, queue, dataSource). */
export const JUDGMENT_EXTRAS = Symbol('JUDGMENT_EXTRAS');
