export * from './assessment';
export * from './answers';
export * from './provenance';
export * from './unassessed';
export * from './typing';
