export * from './evidence';
export * from './judgment.decorator';
export * from './decision.decorator';
export * from './judgment.registry';
