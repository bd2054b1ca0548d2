import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { type JudgmentModuleOptions, judgmentOptionsFromEnv } from 'nestjs-judgment';
import { type JevSimulator, startJevSimulator } from 'nestjs-judgment/simulator';
import type { Env } from './support-desk.config';

/**
 * The Judgment module options from the environment (`judgmentOptionsFromEnv`). In the embedded default — the jev
 * connection is the default one and TYPESAFE_API_KEY is not set — it starts the Jev simulator in-process on a free
 * loopback port and points the jev connection at it, so the real Jev driver runs over real HTTP (a loopback url needs
 * no key). The simulator stops when the app closes.
 */
export class EngineSetup implements OnApplicationShutdown {
  private constructor(
    readonly options: JudgmentModuleOptions,
    /** The in-process simulator, or null when a real Engine (or another connection) is configured. */
    readonly simulator: JevSimulator | null,
  ) {}

  static async start(env: Env): Promise<EngineSetup> {
    const options = judgmentOptionsFromEnv(env);
    const embedded = (options.engine ?? 'jev') === 'jev' && !env.TYPESAFE_API_KEY?.trim();
    if (!embedded) return new EngineSetup(options, null);
    const simulator = await startJevSimulator({ logRequests: false });
    const engines = { ...options.engines, jev: { ...options.engines?.jev, url: simulator.url } };
    return new EngineSetup({ ...options, engines }, simulator);
  }

  /** Where the jev connection points: the simulator's URL, or the configured one. */
  get jevUrl(): string | null {
    const url = this.options.engines?.jev?.url;
    return typeof url === 'string' ? url : null;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.simulator?.stop();
  }
}

/** Provides EngineSetup (started once per app) to `JudgmentModule.forRootAsync`. */
@Module({})
export class EngineSetupModule {
  static forRoot(env: Env): DynamicModule {
    return {
      module: EngineSetupModule,
      providers: [{ provide: EngineSetup, useFactory: () => EngineSetup.start(env) }],
      exports: [EngineSetup],
    };
  }
}
