// Shared helpers of the fake Judge's specs (unit and e2e): a capturing Nest logger and an event listener.
import { Injectable, type LoggerService } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AssessmentCompleted, AssessmentDecided, AssessmentFailed, ReviewRequested } from 'nestjs-judgment';
import { type JudgmentEvent } from '../events/judgment.events';

/** Keeps every event the package announces, in order. */
@Injectable()
export class EventLog {
  readonly events: JudgmentEvent[] = [];

  @OnEvent(AssessmentCompleted.NAME)
  @OnEvent(AssessmentFailed.NAME)
  @OnEvent(AssessmentDecided.NAME)
  @OnEvent(ReviewRequested.NAME)
  keep(event: JudgmentEvent): void {
    this.events.push(event);
  }

  /** The class names of the events so far. */
  names(): string[] {
    return this.events.map((event) => event.constructor.name);
  }

  of<E extends JudgmentEvent>(type: abstract new (...args: any[]) => E): E[] {
    return this.events.filter((event): event is E => event instanceof type);
  }
}

/** A Nest logger that keeps the package's messages (`Judgment decided.` ...). */
export class CapturedLogger implements LoggerService {
  readonly messages: string[] = [];

  log(message: unknown): void {
    this.keep(message);
  }
  warn(message: unknown): void {
    this.keep(message);
  }
  error(message: unknown): void {
    this.keep(message);
  }

  private keep(message: unknown): void {
    const text = typeof message === 'object' && message !== null ? (message as { message?: unknown }).message : message;
    this.messages.push(String(text));
  }
}
