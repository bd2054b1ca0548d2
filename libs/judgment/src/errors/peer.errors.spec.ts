import { MissingPeerDependency } from './peer.errors';

// Each test loads the module graph afresh (Nest included), which takes seconds on a busy machine.
jest.setTimeout(60_000);

/** Loads `load` in a fresh module registry where each of `absent` fails to load, as if it were not installed. */
function withoutPeers<T>(absent: string[], load: () => T, versions: Record<string, string> = {}): T {
  const mocked = [...absent, ...Object.keys(versions).map((name) => `${name}/package.json`)];
  let result!: T;
  try {
    jest.isolateModules(() => {
      for (const name of absent) {
        jest.doMock(name, () => {
          throw new Error(`Cannot find module '${name}'`);
        });
      }
      for (const [name, version] of Object.entries(versions)) jest.doMock(`${name}/package.json`, () => ({ version }));
      result = load();
    });
  } finally {
    for (const name of mocked) jest.dontMock(name);
  }
  return result;
}

/** What `load` threw, or a failure when it did not throw. */
function thrownBy(load: () => unknown): Error {
  try {
    load();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a MissingPeerDependency, but nothing was thrown');
}

const queueOn = () => {
  const { JudgmentModule } = require('../judgment.module') as typeof import('../judgment.module');
  return JudgmentModule.forRoot({ queue: { enabled: true } });
};
const httpAdapter = () => require('../http');

describe('a missing or unusable peer dependency', () => {
  it('stops an app with the queue on and no @nestjs/bullmq, naming the package and the install command', () => {
    const error = thrownBy(() => withoutPeers(['@nestjs/bullmq'], queueOn));

    expect(error.name).toBe(MissingPeerDependency.name);
    expect(error.message).toContain('The queue (queue.enabled: true)');
    expect(error.message).toContain('@nestjs/bullmq is not installed');
    expect(error.message).toMatch(/npm install @nestjs\/bullmq$/);
  });

  it('names every missing queue peer in one error', () => {
    const error = thrownBy(() => withoutPeers(['@nestjs/bullmq', 'bullmq', 'ioredis'], queueOn));

    expect(error.message).toMatch(/npm install @nestjs\/bullmq bullmq ioredis$/);
  });

  it('lets an app with the queue off start without the queue peers', () => {
    const module = withoutPeers(['@nestjs/bullmq', 'bullmq', 'ioredis'], () => {
      const { JudgmentModule } = require('../judgment.module') as typeof import('../judgment.module');
      return JudgmentModule.forRoot({});
    });

    expect(module.module.name).toBe('JudgmentModule');
  });

  it('stops the Review HTTP adapter without class-validator, naming the package and the install command', () => {
    const error = thrownBy(() => withoutPeers(['class-validator'], httpAdapter));

    expect(error.name).toBe(MissingPeerDependency.name);
    expect(error.message).toContain('The Review HTTP adapter (nestjs-judgment/http)');
    expect(error.message).toContain('class-validator is not installed');
    expect(error.message).toMatch(/npm install class-validator$/);
  });

  it('refuses a peer installed in a version outside the declared range, asking for the newest range', () => {
    const error = thrownBy(() => withoutPeers([], httpAdapter, { 'class-validator': '0.13.2' }));

    expect(error.message).toContain('class-validator 0.13.2 is installed but ^0.14.0 || ^0.15.0 is needed');
    expect(error.message).toMatch(/npm install class-validator@\^0\.15\.0$/);
  });

  it('accepts installed peers within their ranges', () => {
    expect(() =>
      withoutPeers([], httpAdapter, { 'class-validator': '0.14.3', 'class-transformer': '0.5.1' }),
    ).not.toThrow();
  });
});
