// The core module builds the classes the options name (Engine drivers, the ResolutionPolicy) through DI at startup; a
// class that cannot be built stops the app with InvalidConfiguration naming it, never a stand-in instance. forRootAsync
// takes the classes beside useFactory (`driverClasses`), since DI prepares them when the module is declared.
import { type DynamicModule, Global, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Engine, EngineResponse } from './engines/engine.interface';
import { EngineManager } from './engines/engine.manager';
import { InvalidConfiguration } from './errors';
import { JudgmentModule } from './judgment.module';

/** The error the app's startup fails with, or null when it starts. */
async function startupFailure(root: DynamicModule): Promise<Error | null> {
  return Test.createTestingModule({ imports: [root] })
    .compile()
    .then((moduleRef) => moduleRef.init())
    .then(
      async (app) => {
        await app.close();
        return null;
      },
      (error: Error) => error,
    );
}

@Injectable()
class UnreachableEngine implements Engine {
  constructor() {
    throw new Error('no endpoint configured');
  }

  model(): string {
    return 'none';
  }

  async answer(): Promise<EngineResponse> {
    throw new Error('never asked');
  }
}

it('an Engine class named as a driver that cannot be built stops startup naming the class and the cause', async () => {
  const root = JudgmentModule.forRoot({
    engine: 'custom',
    engines: { custom: { driver: UnreachableEngine } },
    log: false,
    persistence: { enabled: false },
    dataSource: false,
  });
  const failure = await startupFailure(root);
  expect(failure).toBeInstanceOf(InvalidConfiguration);
  expect(failure?.message).toMatch(/^The driver UnreachableEngine could not be constructed: no endpoint configured/);
});

@Injectable()
class Endpoint {
  readonly model = 'endpoint-1.0.0';
}

@Global()
@Module({ providers: [Endpoint], exports: [Endpoint] })
class EndpointModule {}

@Injectable()
class EndpointEngine implements Engine {
  constructor(readonly endpoint: Endpoint) {}

  model(): string {
    return this.endpoint.model;
  }

  async answer(): Promise<EngineResponse> {
    throw new Error('never asked');
  }
}

const ASYNC_BASE = { engine: 'custom', log: false, persistence: { enabled: false } };

it('forRootAsync: an Engine class given in driverClasses is built through DI with the services of its imports', async () => {
  const root = JudgmentModule.forRootAsync({
    dataSource: false,
    driverClasses: [EndpointEngine],
    imports: [EndpointModule],
    useFactory: () => ({ ...ASYNC_BASE, engines: { custom: { driver: EndpointEngine } } }),
  });
  const app = await (await Test.createTestingModule({ imports: [root] }).compile()).init();
  try {
    expect(app.get(EngineManager).connection('custom').model()).toBe('endpoint-1.0.0');
  } finally {
    await app.close();
  }
});

it('forRootAsync: an Engine class only its factory names stops startup, saying to add it to driverClasses', async () => {
  const root = JudgmentModule.forRootAsync({
    dataSource: false,
    imports: [EndpointModule],
    useFactory: () => ({ ...ASYNC_BASE, engines: { custom: { driver: EndpointEngine } } }),
  });
  const failure = await startupFailure(root);
  expect(failure).toBeInstanceOf(InvalidConfiguration);
  expect(failure?.message).toBe(
    'The connection custom names the driver EndpointEngine, which came from the factory of ' +
      'JudgmentModule.forRootAsync() and needs services from DI, but DI builds the classes the options name from ' +
      'those given when the module is declared. Give it beside useFactory: JudgmentModule.forRootAsync({ ' +
      'driverClasses: [EndpointEngine], useFactory, ... }).',
  );
});

it('forRootAsync: an Engine class only its factory names is built when it needs nothing from DI', async () => {
  class StandaloneEngine implements Engine {
    model(): string {
      return 'standalone-2.0.0';
    }

    async answer(): Promise<EngineResponse> {
      throw new Error('never asked');
    }
  }
  const root = JudgmentModule.forRootAsync({
    dataSource: false,
    useFactory: () => ({ ...ASYNC_BASE, engines: { custom: { driver: StandaloneEngine } } }),
  });
  const app = await (await Test.createTestingModule({ imports: [root] }).compile()).init();
  try {
    expect(app.get(EngineManager).connection('custom').model()).toBe('standalone-2.0.0');
  } finally {
    await app.close();
  }
});

it('an Engine class whose dependency nobody provides stops startup naming the class and the argument', async () => {
  const root = JudgmentModule.forRoot({
    ...ASYNC_BASE,
    engines: { custom: { driver: EndpointEngine } },
    dataSource: false,
  });
  const failure = await startupFailure(root);
  expect(failure).toBeInstanceOf(InvalidConfiguration);
  expect(failure?.message).toBe(
    'The driver EndpointEngine could not be constructed: argument 0 of its constructor (Endpoint) is provided by no ' +
      'module it can see. Provide its dependencies (a global module, or the imports of forRootAsync), or give a class ' +
      'that can be built.',
  );
});
