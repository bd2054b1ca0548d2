// The demo ships a calibration lock covering all its Decisions under both of its Engines (the Jev simulator and the
// simulator's OpenAI mode), so it runs the drift guard with onDrift 'review' and starts listing no uncalibrated Decision.
import { CalibrationLock } from 'nestjs-judgment/calibration';
import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { supportDeskConfig } from '../../apps/support-desk/src/config/support-desk.config';
import { SUPPORT_DESK_LOCK, SupportDeskModule } from '../../apps/support-desk/src/support-desk.module';

class WarningLog implements LoggerService {
  readonly warnings: unknown[] = [];
  log(): void {}
  error(): void {}
  warn(message: unknown): void {
    this.warnings.push(message);
  }
}

describe('the demo’s calibration lock', () => {
  it('has an entry for every Decision, each calibrated under the Jev simulator and its OpenAI mode', () => {
    const lock = CalibrationLock.read(SUPPORT_DESK_LOCK);
    const entries = [
      ['refund-abuse', 'RefundDecision', '2'],
      ['ticket-routing', 'TicketRoutingDecision', '1'],
      ['post-moderation', 'PostModerationDecision', '1'],
    ] as const;
    for (const [judgment, decision, version] of entries) {
      const entry = lock.entry(judgment, decision, version);
      expect(entry?.identities.map((identity) => identity.model).sort()).toEqual(['jev-1.13.0', 'sim-4o-2026-09-17']);
      expect(entry?.identities.every((identity) => identity.cases === 600)).toBe(true);
    }
    // post-moderation's escalation cascade is locked tier by tier: the drift guard checks each tier against its own.
    expect(lock.entry('post-moderation', 'PostModerationDecision', '1')?.cascade).toEqual([
      expect.objectContaining({ tier: 1, connection: 'openai', driver: 'openai', model: 'sim-4o-2026-09-17' }),
      expect.objectContaining({ tier: 2, connection: 'jev', driver: 'jev', model: 'jev-1.13.0' }),
    ]);
  });

  it.each([['jev'], ['openai']])('with JUDGMENT_ENGINE=%s, startup lists no uncalibrated Decision', async (engine) => {
    const warnings = new WarningLog();
    const config = supportDeskConfig({ JUDGMENT_ENGINE: engine }, { sqlitePath: ':memory:' });
    const app = await NestFactory.createApplicationContext(SupportDeskModule.forRoot(config, 'all'), {
      logger: warnings,
      abortOnError: false,
    });
    try {
      await app.init();
      expect(warnings.warnings).not.toContainEqual(expect.objectContaining({ message: 'Decision not calibrated.' }));
    } finally {
      await app.close();
    }
  });
});
