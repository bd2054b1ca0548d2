export * from './likelihood';
export * from './likelihood-set';
export * from './classification';
export * from './rating';
export * from './question';
export * from './questions-fingerprint';
