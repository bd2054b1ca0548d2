import { checkClassName } from '../cli/generators';
import { Evidence } from '../definition/evidence';
import { Judgment } from '../definition/judgment.decorator';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { Assessment } from '../assessment/assessment';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import { fingerprint } from '../fingerprint/fingerprint';
import { resolveJudgmentOptions } from '../judgment.options';
import { fakeAssessment } from '../testing/fake-assessment';
import { runScript } from '../testing/scripts';
import { SupportTicket, aTicket, jevProvenance } from '../testing/fixtures.spec-helpers';
import {
  GeneratorError,
  InvalidConfiguration,
  InvalidEvidence,
  InvalidJudgment,
  InvalidScript,
  JudgmentError,
  UnknownDecision,
  UnknownJudgmentName,
  UnrebuildableAssessment,
} from '.';

type ErrorClass = abstract new (...args: any[]) => JudgmentError;

/** The error `act` throws (or rejects with), checked to be a JudgmentError of exactly the expected class. */
async function misuse(act: () => unknown, expected: ErrorClass): Promise<JudgmentError> {
  let thrown: unknown;
  try {
    await act();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(JudgmentError);
  expect(thrown).toBeInstanceOf(expected);
  expect((thrown as Error).name).toBe(expected.name);
  return thrown as JudgmentError;
}

const ticket = new SupportTicket(aTicket());

describe('every misuse our own checks detect throws a JudgmentError subclass', () => {
  it.each([
    [{ name: ' ' }, /name/],
    [{ cacheFor: -1 }, /cacheFor/],
    [{ engine: '' }, /engine/],
    [{ decision: 'RouteTicket' as unknown as () => never }, /Decision class/],
  ])('@Judgment(%p) throws InvalidJudgment naming the option', async (options, message) => {
    expect((await misuse(() => Judgment(options), InvalidJudgment)).message).toMatch(message);
  });

  it('Evidence.untrusted() of a non-string throws InvalidEvidence', async () => {
    const error = await misuse(() => Evidence.untrusted(42 as unknown as string), InvalidEvidence);
    expect(error.message).toMatch(/Evidence.untrusted\(\) must be the end-user text as a string; got number/);
  });

  it('fingerprinting a value that is not JSON throws InvalidEvidence', async () => {
    await misuse(() => fingerprint(undefined), InvalidEvidence);
  });

  it('a class that is neither a Judgment nor a Decision given to forFeature() throws InvalidConfiguration', async () => {
    class NotAJudgment {}
    const error = await misuse(() => new JudgmentRegistry().register([NotAJudgment]), InvalidConfiguration);
    expect(error.message).toMatch(/NotAJudgment was given to JudgmentModule.forFeature\(\)/);
  });

  it('an unknown Judgment name throws UnknownJudgmentName; an unknown Decision name throws UnknownDecision', async () => {
    const registry = new JudgmentRegistry();
    await misuse(() => registry.judgment('refund-abuse'), UnknownJudgmentName);
    const error = await misuse(() => registry.decision('route-ticket'), UnknownDecision);
    expect(error).not.toBeInstanceOf(UnknownJudgmentName);
    expect(error.message).toMatch(/No Decision is registered under the name "route-ticket".*forFeature/);
  });

  it('a resolutionPolicy that is not a policy class throws InvalidConfiguration at startup', async () => {
    class NotAPolicy {}
    await misuse(() => resolveJudgmentOptions({ resolutionPolicy: NotAPolicy }), InvalidConfiguration);
  });

  it('encoded answers that do not fit the declared Questions throw UnrebuildableAssessment', async () => {
    const rebuild = () =>
      Assessment.fromAnswers(ticket, ticket.questions(), { urgent: 7 }, jevProvenance(), COMPUTE_ONLY);
    expect((await misuse(rebuild, UnrebuildableAssessment)).message).toMatch(/"urgent".*not a probability/);
  });

  it('a fake Assessment scripted with no label map throws InvalidScript', async () => {
    const make = () => fakeAssessment(ticket).classification('department', 42 as never);
    await misuse(make, InvalidScript);
  });

  it('a fake Judge script that gives neither answers nor a builder throws InvalidScript', async () => {
    await misuse(() => runScript('support-ticket', () => 42 as never, ticket, 1), InvalidScript);
  });

  it('a generator given a class name that is not PascalCase throws GeneratorError', async () => {
    await misuse(() => checkClassName('refund-abuse', 'The Judgment name'), GeneratorError);
  });
});
