export * from './judgment.events';
export * from './judgment-events.publisher';
