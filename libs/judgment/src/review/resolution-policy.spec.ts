// The app's ResolutionPolicy reaches the review services by constructor injection: the app's own provider of the class
// when it registers one (found when the app starts), else the module's wiring builds the class the options name
// through DI, and a class that cannot be built stops the app with its name. forRootAsync takes the class beside
// useFactory, since DI prepares what it builds when the module is declared.
import { Global, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InvalidConfiguration } from '../errors';
import { JudgmentModule } from '../judgment.module';
import type { JudgmentModuleOptions } from '../judgment.options';
import { ResolutionPolicyHost } from './resolution-policy';

const BASE: JudgmentModuleOptions = {
  engine: 'mock',
  engines: { mock: { driver: 'mock' } },
  log: false,
  persistence: { enabled: false },
};

@Injectable()
class Staff {
  readonly ids = new Set([7]);
}

@Global()
@Module({ providers: [Staff], exports: [Staff] })
class StaffModule {}

@Injectable()
class StaffPolicy {
  constructor(readonly staff: Staff) {}

  canResolve(reviewer: { id: unknown }): boolean {
    return this.staff.ids.has(reviewer.id as number);
  }
}

@Injectable()
class BrokenPolicy {
  constructor() {
    throw new Error('the directory is not configured');
  }

  canResolve(): boolean {
    return true;
  }
}

class Unprovided {}

@Injectable()
class NeedsUnprovided {
  constructor(readonly missing: Unprovided) {}

  canResolve(): boolean {
    return true;
  }
}

async function start(root: ReturnType<typeof JudgmentModule.forRoot>, imports: unknown[] = []) {
  const moduleRef = await Test.createTestingModule({ imports: [...(imports as never[]), root] }).compile();
  return moduleRef.init();
}

async function failure(root: ReturnType<typeof JudgmentModule.forRoot>): Promise<Error> {
  try {
    const app = await start(root);
    await app.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the app to fail at startup');
}

describe('the ResolutionPolicy option', () => {
  it('forRoot: the policy is built through DI with the services of a global module, and injected', async () => {
    const app = await start(JudgmentModule.forRoot({ ...BASE, dataSource: false, resolutionPolicy: StaffPolicy }), [
      StaffModule,
    ]);
    try {
      const policy = app.get(ResolutionPolicyHost).policy as StaffPolicy;
      expect(policy).toBeInstanceOf(StaffPolicy);
      expect(policy.staff).toBe(app.get(Staff));
    } finally {
      await app.close();
    }
  });

  it('forRootAsync: the policy given beside useFactory is built with the services of its imports', async () => {
    const app = await start(
      JudgmentModule.forRootAsync({
        dataSource: false,
        resolutionPolicy: StaffPolicy,
        imports: [StaffModule],
        useFactory: () => BASE,
      }),
    );
    try {
      expect(app.get(ResolutionPolicyHost).policy).toBeInstanceOf(StaffPolicy);
    } finally {
      await app.close();
    }
  });

  it('forRootAsync: a policy only its factory names stops startup, saying to give it beside useFactory', async () => {
    const error = await failure(
      JudgmentModule.forRootAsync({
        dataSource: false,
        imports: [StaffModule],
        useFactory: () => ({ ...BASE, resolutionPolicy: StaffPolicy }),
      }),
    );
    expect(error).toBeInstanceOf(InvalidConfiguration);
    expect(error.message).toBe(
      'The resolutionPolicy StaffPolicy came from the factory of JudgmentModule.forRootAsync() and needs services ' +
        'from DI, but DI builds the classes the options name from those given when the module is declared. Give it ' +
        'beside useFactory: JudgmentModule.forRootAsync({ resolutionPolicy: StaffPolicy, useFactory, ... }).',
    );
  });

  it('forRootAsync: a policy only its factory names is built when it needs nothing from DI', async () => {
    @Injectable()
    class EveryoneBut7 {
      canResolve(reviewer: { id: unknown }): boolean {
        return reviewer.id !== 7;
      }
    }
    const app = await start(
      JudgmentModule.forRootAsync({
        dataSource: false,
        useFactory: () => ({ ...BASE, resolutionPolicy: EveryoneBut7 }),
      }),
    );
    try {
      expect(app.get(ResolutionPolicyHost).policy).toBeInstanceOf(EveryoneBut7);
    } finally {
      await app.close();
    }
  });

  it("forRootAsync: a policy only its factory names is the app's own provider when the app registers it", async () => {
    @Module({ providers: [Staff], exports: [Staff] })
    class LocalStaffModule {}
    @Module({ imports: [LocalStaffModule], providers: [StaffPolicy] })
    class ReviewersModule {}
    const app = await start(
      JudgmentModule.forRootAsync({
        dataSource: false,
        useFactory: () => ({ ...BASE, resolutionPolicy: StaffPolicy }),
      }),
      [ReviewersModule],
    );
    try {
      expect(app.get(ResolutionPolicyHost).policy).toBe(app.select(ReviewersModule).get(StaffPolicy));
    } finally {
      await app.close();
    }
  });

  it("with the app's own provider of the class, the module builds no second instance", async () => {
    @Module({ providers: [Staff], exports: [Staff] })
    class LocalStaffModule {}
    let built = 0;
    @Injectable()
    class CountedPolicy extends StaffPolicy {
      constructor(staff: Staff) {
        super(staff);
        built += 1;
      }
    }
    @Module({ imports: [LocalStaffModule], providers: [CountedPolicy] })
    class CountedReviewersModule {}
    const app = await start(JudgmentModule.forRoot({ ...BASE, dataSource: false, resolutionPolicy: CountedPolicy }), [
      CountedReviewersModule,
    ]);
    try {
      expect(app.get(ResolutionPolicyHost).policy).toBe(app.select(CountedReviewersModule).get(CountedPolicy));
      expect(built).toBe(1);
    } finally {
      await app.close();
    }
  });

  it("the app's own provider of the class is used when it registers one, with the services of its own module", async () => {
    // Staff lives in a module that is not global: only the app's own provider of the policy can reach it.
    @Module({ providers: [Staff], exports: [Staff] })
    class LocalStaffModule {}
    @Module({ imports: [LocalStaffModule], providers: [StaffPolicy] })
    class ReviewersModule {}
    const app = await start(JudgmentModule.forRoot({ ...BASE, dataSource: false, resolutionPolicy: StaffPolicy }), [
      ReviewersModule,
    ]);
    try {
      const own = app.select(ReviewersModule).get(StaffPolicy);
      expect(app.get(ResolutionPolicyHost).policy).toBe(own);
      expect(own.staff).toBeInstanceOf(Staff);
    } finally {
      await app.close();
    }
  });

  it('without the option no policy is injected (every reviewer is refused)', async () => {
    const app = await start(JudgmentModule.forRoot({ ...BASE, dataSource: false }));
    try {
      expect(app.get(ResolutionPolicyHost).policy).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('a policy whose constructor throws stops startup with InvalidConfiguration naming the class and the cause', async () => {
    const error = await failure(JudgmentModule.forRoot({ ...BASE, dataSource: false, resolutionPolicy: BrokenPolicy }));
    expect(error).toBeInstanceOf(InvalidConfiguration);
    expect(error.message).toMatch(/^The resolutionPolicy BrokenPolicy could not be constructed: /);
    expect(error.message).toContain('the directory is not configured');
  });

  it('a policy whose dependency nobody provides stops startup naming the class (no fallback instance)', async () => {
    const error = await failure(
      JudgmentModule.forRoot({ ...BASE, dataSource: false, resolutionPolicy: NeedsUnprovided }),
    );
    expect(error).toBeInstanceOf(InvalidConfiguration);
    expect(error.message).toMatch(/^The resolutionPolicy NeedsUnprovided could not be constructed: /);
    expect(error.message).toContain('Provide its dependencies');
  });
});
