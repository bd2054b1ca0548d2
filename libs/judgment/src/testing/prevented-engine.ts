import type { Engine, EngineRequest, EngineResponse } from '../engines/engine.interface';
import type { EngineManager } from '../engines/engine.manager';
import { RealEngineCallPrevented } from '../errors';

/** The Engine of every connection while the Judge is faked: asking it, or asking its model, throws. */
export class PreventedEngine implements Engine {
  async answer(_request: EngineRequest): Promise<EngineResponse> {
    throw new RealEngineCallPrevented();
  }

  model(): string {
    throw new RealEngineCallPrevented();
  }
}

/**
 * Makes every connection of an EngineManager (any name, configured or not) a PreventedEngine. The fake Judge does
 * this to its module's manager, which other services (startup check, Calibration, CLI) already hold, so the
 * manager's own `connection()` is replaced rather than the provider.
 */
export function preventEngineCalls(engines: EngineManager): void {
  const prevented = new PreventedEngine();
  engines.connection = () => prevented;
}
