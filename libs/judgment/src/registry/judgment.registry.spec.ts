import { Decision, Judgment, Likelihood } from 'nestjs-judgment';
import { DuplicateJudgmentName, InvalidDecision, UnknownJudgmentName } from 'nestjs-judgment/testing';
import { JudgmentRegistry } from './judgment.registry';
import {
  RefundAbuse,
  RefundDecision,
  RefundOutcome,
  RouteTicket,
  StrictRefundDecision,
  SupportTicket,
  aRefund,
  aTicket,
} from '../testing/fixtures.spec-helpers';

const registryOf = (...classes: Array<new (...args: any[]) => unknown>) => {
  const registry = new JudgmentRegistry();
  registry.register(classes);
  return registry;
};

describe('JudgmentRegistry', () => {
  it('a registered Judgment is found by its name, and lists itself', () => {
    const registry = registryOf(RefundAbuse, SupportTicket);
    expect(registry.judgment('refund-abuse')).toBe(RefundAbuse);
    expect(registry.judgment('SupportTicket')).toBe(SupportTicket);
    expect(registry.hasJudgment('refund-abuse')).toBe(true);
    expect(registry.judgments()).toEqual([RefundAbuse, SupportTicket]);
  });

  it('a registered Decision is found by its name', () => {
    const registry = registryOf(RouteTicket, StrictRefundDecision);
    expect(registry.decision('RouteTicket')).toBe(RouteTicket);
    expect(registry.decision('strict-refund')).toBe(StrictRefundDecision);
    expect(registry.hasJudgment('RouteTicket')).toBe(false);
  });

  it("a Judgment's default Decision is registered with it", () => {
    const registry = registryOf(RefundAbuse);
    expect(registry.decision('RefundDecision')).toBe(RefundDecision);
    expect(registry.decisions()).toEqual([RefundDecision]);
  });

  it('registering the same class again is harmless', () => {
    const registry = registryOf(RefundAbuse, RefundDecision, RefundAbuse);
    expect(registry.judgments()).toEqual([RefundAbuse]);
    expect(registry.decisions()).toEqual([RefundDecision]);
  });

  it('two Judgments under one name fail with DuplicateJudgmentName naming both classes', () => {
    @Judgment({ name: 'refund-abuse' })
    class CopiedRefundAbuse implements Judgment {
      evidence() {
        return {};
      }
      questions() {
        return { q: Likelihood.that('Is it?') };
      }
    }
    const register = () => registryOf(RefundAbuse, CopiedRefundAbuse);
    expect(register).toThrow(DuplicateJudgmentName);
    expect(register).toThrow(/"refund-abuse".*RefundAbuse and CopiedRefundAbuse/);
  });

  it('two Decisions under one name fail with DuplicateJudgmentName naming both classes', () => {
    @Decision({ outcomes: RefundOutcome, name: 'strict-refund' })
    class OtherStrict {}
    const register = () => registryOf(StrictRefundDecision, OtherStrict);
    expect(register).toThrow(DuplicateJudgmentName);
    expect(register).toThrow(/"strict-refund".*StrictRefundDecision and OtherStrict/);
  });

  it('an unknown name fails listing the registered names', () => {
    const registry = registryOf(RefundAbuse, SupportTicket);
    expect(() => registry.judgment('refund')).toThrow(UnknownJudgmentName);
    expect(() => registry.judgment('refund')).toThrow(/"refund".*Registered: refund-abuse, SupportTicket\./);
    expect(() => registry.decision('Strict')).toThrow(/"Strict".*Registered: RefundDecision\./);
    expect(() => new JudgmentRegistry().judgment('x')).toThrow(/Registered: none\./);
  });

  it('a class declared with @Judgment() is a Judgment even when its methods are instance properties', () => {
    @Judgment({ name: 'arrow-judgment' })
    class ArrowJudgment implements Judgment {
      evidence = () => ({});
      questions = () => ({ q: Likelihood.that('Is it?') });
    }
    expect(registryOf(ArrowJudgment).judgment('arrow-judgment')).toBe(ArrowJudgment);
  });

  it('a class that is neither a Judgment nor a Decision is refused', () => {
    class RefundService {
      evidence() {
        return {};
      }
    }
    expect(() => registryOf(RefundService)).toThrow(/RefundService .*neither a Judgment .* nor a Decision/);
  });

  it("refuses a Decision that is only other Judgments' default, and lets through its own Judgment's or an unowned one", () => {
    const registry = registryOf(RefundAbuse, SupportTicket);
    const ticket = new SupportTicket(aTicket());
    expect(() => registry.refuseForeignDecision(ticket, new RefundDecision())).toThrow(
      new InvalidDecision(
        'RefundDecision is the Decision of refund-abuse; it cannot decide an Assessment of SupportTicket. Pass a ' +
          'Decision written for SupportTicket instead.',
      ),
    );
    expect(() => registry.refuseForeignDecision(new RefundAbuse(aRefund()), new RefundDecision())).not.toThrow();
    expect(() => registry.refuseForeignDecision(ticket, new StrictRefundDecision())).not.toThrow();
    expect(() => registry.refuseForeignDecision(ticket, { decide: () => RefundOutcome.Approve })).not.toThrow();
  });
});
