import { Judgment, type Judgment as JudgmentShape } from '../definition/judgment.decorator';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { Likelihood } from '../questions/likelihood';
import { decodeJudgment, encodeJudgment } from './judgment.payload';
import { UnqueueableJudgment } from '../errors';

let constructed = 0;

@Judgment({ name: 'ticket-triage' })
class TicketTriage implements JudgmentShape {
  constructor(
    readonly ticket: unknown,
    readonly note?: string,
  ) {
    constructed++;
  }
  evidence() {
    return { ticket: this.ticket as string };
  }
  questions() {
    return { urgent: Likelihood.that('Is #hashtag spam urgent?') };
  }
}

@Judgment({ name: 'with-private' })
class WithPrivate implements JudgmentShape {
  #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  evidence() {
    return { text: this.#text };
  }
  questions() {
    return { urgent: Likelihood.that('Urgent?') };
  }
}

// Undecorated: TypeScript's legacy decorators refuse classes with static #private members.
class WithStaticPrivate implements JudgmentShape {
  static #made = 0;
  static get made() {
    return WithStaticPrivate.#made;
  }
  constructor(readonly text: string) {
    WithStaticPrivate.#made++;
  }
  evidence() {
    return { text: this.text };
  }
  questions() {
    return { urgent: Likelihood.that('Urgent?') };
  }
}

@Judgment({ name: 'unregistered' })
class Unregistered extends TicketTriage {}

const registry = new JudgmentRegistry();
registry.register([TicketTriage, WithPrivate, WithStaticPrivate]);

/** The payload as a job carries it: through JSON, as BullMQ stores job data. */
const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value));
const roundTrip = async (judgment: JudgmentShape) =>
  decodeJudgment(viaJson(encodeJudgment(judgment, registry, null)), registry, null);
const refusal = (judgment: JudgmentShape) => {
  try {
    encodeJudgment(judgment, registry, null);
  } catch (error) {
    expect(error).toBeInstanceOf(UnqueueableJudgment);
    return (error as Error).message;
  }
  throw new Error('expected the Judgment to be refused');
};

describe('queued Judgment payload', () => {
  it('serialises plain data whole, Dates and undefined values included, through JSON', async () => {
    const ticket = {
      subject: 'Refund #12',
      count: 3,
      ok: true,
      none: null,
      openedAt: new Date('2026-03-04T05:06:07.089Z'),
      history: [{ at: new Date('2026-01-01T00:00:00.000Z'), by: 'ann' }, undefined, 'x'],
      missing: undefined,
    };
    const copy = (await roundTrip(new TicketTriage(ticket))) as TicketTriage;
    expect(copy.ticket).toStrictEqual(ticket);
    expect('note' in copy && copy.note === undefined).toBe(true);
    expect('missing' in (copy.ticket as object)).toBe(true);
  });

  it('revives a Date held directly in a property', async () => {
    const copy = (await roundTrip(new TicketTriage(new Date('2026-05-06T07:08:09.000Z')))) as TicketTriage;
    expect(copy.ticket).toStrictEqual(new Date('2026-05-06T07:08:09.000Z'));
  });

  it('rebuilds the registered class without running its constructor', async () => {
    const original = new TicketTriage('printer on fire', 'vip');
    const before = constructed;
    const copy = await roundTrip(original);
    expect(constructed).toBe(before);
    expect(copy).toBeInstanceOf(TicketTriage);
    expect(copy).not.toBe(original);
    expect(copy.evidence()).toEqual({ ticket: 'printer on fire' });
    expect((copy as TicketTriage).note).toBe('vip');
  });

  it('names the Judgment by its registered name', () => {
    expect(encodeJudgment(new TicketTriage('x'), registry, null).judgment).toBe('ticket-triage');
  });

  it('refuses an unregistered Judgment class', () => {
    expect(refusal(new Unregistered('x'))).toMatch(/no Judgment class is registered under its name "unregistered"/);
  });

  it('refuses ES #private members, naming the member', () => {
    expect(refusal(new WithPrivate('x'))).toMatch(/WithPrivate declares the ES private member #text/);
  });

  it('accepts static #private members and a # inside strings', async () => {
    expect((await roundTrip(new WithStaticPrivate('x'))).evidence()).toEqual({ text: 'x' });
  });

  it.each([
    ['a function', () => 1, /property ticket of ticket-triage .* holds a function/],
    ['a closure nested in an object', { format: (x: string) => x }, /holds a function at \.format/],
    ['a Symbol', Symbol('s'), /holds a Symbol/],
    ['a BigInt', { amount: 10n }, /holds a BigInt at \.amount/],
    ['NaN', [1, NaN], /holds NaN at \[1\]/],
    ['a class instance', { tags: new Set(['a']) }, /holds a Set instance at \.tags/],
    ['an invalid Date', new Date('nope'), /holds an invalid Date/],
  ])('refuses %s, naming the property', (_kind, value, message) => {
    expect(refusal(new TicketTriage(value))).toMatch(message);
  });

  it('refuses a cycle, naming where it closes', () => {
    const ticket: Record<string, unknown> = { id: 1, thread: {} };
    (ticket.thread as Record<string, unknown>).parent = ticket;
    expect(refusal(new TicketTriage(ticket))).toMatch(/holds a circular reference at \.thread\.parent/);
  });

  it('refuses a property keyed by a Symbol', () => {
    const judgment = new TicketTriage('x');
    (judgment as unknown as Record<symbol, string>)[Symbol('hidden')] = 'y';
    expect(refusal(judgment)).toMatch(/keyed by a Symbol/);
  });
});
