// The core module builds the classes the options name (Engine drivers, the ResolutionPolicy) through DI at startup; a
// class that cannot be built stops the app with InvalidConfiguration naming it, never a stand-in instance.
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Engine, EngineResponse } from './engines/engine.interface';
import { InvalidConfiguration } from './errors';
import { JudgmentModule } from './judgment.module';

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
  const failure = await Test.createTestingModule({ imports: [root] })
    .compile()
    .then((moduleRef) => moduleRef.init())
    .then(
      () => null,
      (error: Error) => error,
    );
  expect(failure).toBeInstanceOf(InvalidConfiguration);
  expect(failure?.message).toMatch(/^The driver UnreachableEngine could not be constructed: no endpoint configured/);
});
