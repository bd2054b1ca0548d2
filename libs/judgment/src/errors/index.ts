export * from './judgment.error';
export * from './declaration.errors';
export * from './reading.errors';
export * from './engine.errors';
export * from './record.errors';
export * from './testing.errors';
export { MissingPeerDependency, type PeerProblem } from './peer.errors';
