import {
  type DynamicModule,
  Inject,
  Injectable,
  Logger,
  type LoggerService,
  Module,
  type OnModuleInit,
  type Type,
} from '@nestjs/common';
import { ModuleRef, NestFactory } from '@nestjs/core';
import { EngineManager } from '../engines/engine.manager';
import { EngineNotConfigured, InvalidRateLimit, UnpinnedModel } from '../errors';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import { RecordWriter } from '../persistence/record.writer';
import { JUDGMENT_WORKERS_DISABLED } from '../queue/queue.constants';

type Token = Type<unknown> | string | symbol;

/** An app's root module as the CLI boots it. */
export type AppModule = Type<unknown> | DynamicModule;

/** The services that still work when the app failed to start over its Engine configuration (no network needed). */
const DIAGNOSTIC_TOKENS: readonly Token[] = [EngineManager, RESOLVED_JUDGMENT_OPTIONS];

/**
 * Where the commands find the app's services. The app is booted (as a Nest application context, never with the
 * library's queue workers) the first time a command needs it, so `make:*` runs without a database. When the app failed
 * to start because an Engine connection is misconfigured, the services built before the failure stay available, so
 * `status` can still say what is wrong (the other commands report the failure).
 */
export class CliContext {
  private moduleRef: ModuleRef | null = null;
  private readonly diagnostics = new Map<Token, unknown>();
  private release: (() => Promise<unknown>) | null = null;
  private failure: Error | null = null;
  private started: Promise<void> | null = null;
  private app: { close(): Promise<void> } | null = null;
  private bootFailed = false;

  /** `appModule` is called once, when a command first needs the app (the bin resolves `--app` there). */
  constructor(
    private readonly appModule: () => AppModule,
    private readonly logger: LoggerService,
  ) {}

  /** Whether Nest failed to start the app: what it opened (connections, timers) cannot be closed, only left behind. */
  get failedToStart(): boolean {
    return this.bootFailed;
  }

  /** Boots the app once; rejects when it cannot start, unless `status` can still report on it. */
  start(): Promise<void> {
    this.started ??= this.boot();
    return this.started;
  }

  private async boot(): Promise<void> {
    // What Nest logs while the app's files load (before the context has a logger) goes to stderr too, not stdout.
    Logger.overrideLogger(this.logger);
    const root = cliRootModule(this.appModule(), this);
    try {
      this.app = await NestFactory.createApplicationContext(root, { logger: this.logger, abortOnError: false });
    } catch (error) {
      this.bootFailed = true;
      if (!this.recover(error)) throw error;
    }
  }

  /** Called once the app's providers exist (before its startup checks run). */
  attach(moduleRef: ModuleRef): void {
    this.moduleRef = moduleRef;
    for (const token of DIAGNOSTIC_TOKENS) {
      try {
        this.diagnostics.set(token, moduleRef.get(token, { strict: false }));
      } catch {
        // The app does not import JudgmentModule; get() says so when a command asks.
      }
    }
    try {
      const dataSource = moduleRef.get(RecordWriter, { strict: false }).dataSource();
      this.release = dataSource ? async () => dataSource.isInitialized && dataSource.destroy() : null;
    } catch {
      this.release = null;
    }
  }

  /**
   * Records that the app failed to start. Only an Engine configuration error with the diagnostic services captured
   * can be recovered from: returns whether the commands can run on.
   */
  private recover(error: unknown): boolean {
    const recoverable =
      (error instanceof EngineNotConfigured || error instanceof UnpinnedModel || error instanceof InvalidRateLimit) &&
      this.diagnostics.has(EngineManager);
    if (recoverable) this.failure = error;
    return recoverable;
  }

  /** Closes the app, or what a failed one left open that can be closed (its DataSource). */
  async close(): Promise<void> {
    if (this.app) await this.app.close();
    else if (this.bootFailed) await this.release?.();
  }

  /** A service of the app (any module), or a clear error when the app does not provide it or failed to start. */
  get<T>(token: Type<T> | string | symbol): T {
    if (this.diagnostics.has(token)) return this.diagnostics.get(token) as T;
    if (this.failure) throw this.failure;
    try {
      if (!this.moduleRef) throw new Error('not attached');
      return this.moduleRef.get(token, { strict: false });
    } catch {
      const name = typeof token === 'function' ? token.name : String(token);
      throw new Error(
        `The app does not provide ${name}: import JudgmentModule.forRoot(...) (and forFeature for your Judgments) in ` +
          'the root module given to the judgment command line.',
      );
    }
  }
}

/** Attaches the CLI context to the app as soon as its providers exist. */
@Injectable()
class CliContextAttacher implements OnModuleInit {
  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(CliContext) private readonly context: CliContext,
  ) {}

  onModuleInit(): void {
    this.context.attach(this.moduleRef);
  }
}

/**
 * The root of a CLI run: the app's module, the context attacher, and (global, so JudgmentModule's queue providers
 * see it) the switch that keeps the library's queue workers from ever starting: no command consumes a job.
 */
function cliRootModule(appModule: AppModule, context: CliContext): DynamicModule {
  return {
    module: JudgmentCliModule,
    global: true,
    imports: [appModule],
    providers: [
      { provide: CliContext, useValue: context },
      CliContextAttacher,
      { provide: JUDGMENT_WORKERS_DISABLED, useValue: true },
    ],
    exports: [JUDGMENT_WORKERS_DISABLED],
  };
}

@Module({})
class JudgmentCliModule {}
