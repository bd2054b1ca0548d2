import { Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { JudgmentEvent } from './judgment.events';

/** Emits the package's events through the app's EventEmitter2 (when the app imports EventEmitterModule). */
@Injectable()
export class JudgmentEventsPublisher {
  constructor(@Optional() private readonly emitter?: EventEmitter2) {}

  /** Emits an event and waits for async listeners, so a throwing listener surfaces to the caller. */
  async emit(event: JudgmentEvent): Promise<void> {
    if (!this.emitter) return;
    await this.emitter.emitAsync((event.constructor as unknown as { NAME: string }).NAME, event);
  }
}
