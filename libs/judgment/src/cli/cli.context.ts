import { Inject, Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EngineManager } from '../engines/engine.manager';
import { EngineNotConfigured, UnpinnedModel } from '../errors';
import { JUDGMENT_MODULE_OPTIONS } from '../judgment.constants';
import { AssessmentRecorder } from '../persistence/assessment.recorder';

type Token = Type<unknown> | string | symbol;

/** The services that still work when the app failed to start over its Engine configuration (no network needed). */
const DIAGNOSTIC_TOKENS: readonly Token[] = [EngineManager, JUDGMENT_MODULE_OPTIONS];

/**
 * Where the commands find the app's services. Normally the running app; when the app failed to start because an
 * Engine connection is misconfigured, the services built before the failure, so `status` can still say what is
 * wrong (the other commands report the failure).
 */
export class CliContext {
  private moduleRef: ModuleRef | null = null;
  private readonly diagnostics = new Map<Token, unknown>();
  private release: (() => Promise<unknown>) | null = null;
  private failure: Error | null = null;

  /** The error that stopped the app from starting, or null. */
  get startupFailure(): Error | null {
    return this.failure;
  }

  /** Called once the app's providers exist (before its startup checks run). */
  attach(moduleRef: ModuleRef): void {
    if (this.failure) return;
    this.moduleRef = moduleRef;
    for (const token of DIAGNOSTIC_TOKENS) {
      try {
        this.diagnostics.set(token, moduleRef.get(token, { strict: false }));
      } catch {
        // The app does not import JudgmentModule; get() says so when a command asks.
      }
    }
    try {
      const dataSource = moduleRef.get(AssessmentRecorder, { strict: false }).dataSource();
      this.release = dataSource ? async () => dataSource.isInitialized && dataSource.destroy() : null;
    } catch {
      this.release = null;
    }
  }

  /**
   * Records that the app failed to start. Only an Engine configuration error with the diagnostic services captured
   * can be recovered from: resolves to whether the commands can run on.
   */
  recover(error: unknown): boolean {
    const recoverable =
      (error instanceof EngineNotConfigured || error instanceof UnpinnedModel) && this.diagnostics.has(EngineManager);
    if (recoverable) this.failure = error;
    return recoverable;
  }

  /** Closes what the failed app left open (its DataSource), so the process can end. */
  async close(): Promise<void> {
    await this.release?.();
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
          'the root module given to runJudgmentCli().',
      );
    }
  }
}

/** Attaches the CLI context to the app as soon as its providers exist. */
@Injectable()
export class CliContextAttacher implements OnModuleInit {
  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(CliContext) private readonly context: CliContext,
  ) {}

  onModuleInit(): void {
    this.context.attach(this.moduleRef);
  }
}
