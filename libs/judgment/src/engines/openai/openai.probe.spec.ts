// judgment probe's token check, over answers crafted as a server would send them: two answer tokens of one Question
// that come back as one token id cannot be told apart.
import { Classification, Likelihood } from '../../questions';
import type { EngineHttpAnswer } from '../http/engine-http.client';
import { probeOpenAi, type ProbeTarget } from './openai.probe';

/** A server whose first-token list is `top` (token, probability, id) for every request. */
function target(top: Array<[string, number, number]>): ProbeTarget {
  const body = JSON.stringify({
    id: 'chatcmpl-probe',
    model: 'tiny-judge',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: top[0][0] },
        logprobs: {
          content: [
            {
              token: top[0][0],
              logprob: Math.log(top[0][1]),
              id: top[0][2],
              top_logprobs: top.map(([token, p, id]) => ({ id, token, logprob: Math.log(p) })),
            },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 30, completion_tokens: 1 },
  });
  const answer: EngineHttpAnswer = { status: 200, headers: {}, text: body, attempts: 1 };
  return {
    connection: 'llama',
    url: 'http://127.0.0.1:9/v1',
    model: 'tiny-judge',
    topLogprobs: 20,
    minCoverage: 0.5,
    allowAliases: false,
    key: null,
    send: async () => answer,
  };
}

const registered = [
  { name: 'refunds.flagged', question: Likelihood.that('Does the note ask for a refund?') },
  { name: 'tickets.team', question: Classification.of('Which team?', ['billing', 'technical', 'account']) },
];

it('fails a Question two of whose answer tokens came back as one token id, naming the tokens and the id', async () => {
  const report = await probeOpenAi(
    target([
      ['yes', 0.4, 3582],
      ['no', 0.3, 1217],
      ['A', 0.1, 29909],
      ['B', 0.08, 29909],
      ['C', 0.05, 29907],
      ['0', 0.02, 29900],
    ]),
    registered,
  );
  const tokens = report.findings.filter((finding) => finding.check === 'tokens' && finding.severity === 'failure');
  expect(tokens).toHaveLength(1);
  expect(tokens[0].problem).toBe(
    `tickets.team's answer tokens "A" and "B" came back as the one token #29909: this model cannot tell those ` +
      'options apart.',
  );
});

it('passes answer tokens that came back as tokens of their own', async () => {
  const report = await probeOpenAi(
    target([
      ['yes', 0.4, 3582],
      ['no', 0.3, 1217],
      ['A', 0.1, 29909],
      ['B', 0.08, 29933],
      ['C', 0.05, 29907],
      ['0', 0.02, 29900],
    ]),
    registered,
  );
  expect(report.findings.filter((finding) => finding.check === 'tokens' && finding.severity === 'failure')).toEqual([]);
});
