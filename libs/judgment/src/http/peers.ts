import { requirePeers } from '../errors/peer.errors';

// Imported first by this entry point: the DTOs import class-validator and class-transformer at load time, so the
// check must run before them to turn "Cannot find module" into one error that says what to install.
requirePeers('The Review HTTP adapter (nestjs-judgment/http)', ['class-validator', 'class-transformer']);
