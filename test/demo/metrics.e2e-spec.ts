// The README's Prometheus recipe (test/readme/telemetry.ts, loaded with `node -r` before the app) on a demo run with
// --serve: the official OpenTelemetry Prometheus exporter serves /metrics, and a scrape finds the package's series.
import { freePort } from '../support/service-port';
import { freshCloneEnv, printed, start, stop, stopAll } from './support';

afterEach(() => stopAll());

it('a Prometheus scrape of the demo run finds assessments, decisions, Engine latency, tokens and the Review backlog', async () => {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const demo = start(
    'node',
    ['-r', './scripts/register.js', '-r', './test/readme/telemetry.ts', 'scripts/demo.js', '--serve'],
    freshCloneEnv({ PORT: String(port), METRICS_PORT: String(metricsPort) }),
  );
  try {
    await printed(demo, `HTTP API on http://localhost:${port}`);
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const sample = (pattern: RegExp) => text.split('\n').find((line) => pattern.test(line));

    expect(
      sample(/^judgment_assessments_total\{.*judgment_name="refund-abuse".*judgment_status="assessed".*\} \d+/),
    ).toBeDefined();
    expect(sample(/^judgment_decisions_total\{.*judgment_outcome="escalate".*\} [1-9]/)).toBeDefined();
    expect(
      sample(/^gen_ai_client_operation_duration_count\{.*gen_ai_request_model="jev-[\d.]+".*\} [1-9]/),
    ).toBeDefined();
    expect(sample(/^gen_ai_client_token_usage_count\{.*gen_ai_token_type="input".*\} [1-9]/)).toBeDefined();
    // The demo sends 4 cases to Review and resolves one refund.
    expect(sample(/^judgment_review_backlog\{.*judgment_name="refund-abuse".*\} [1-9]/)).toBeDefined();
    expect(sample(/^judgment_review_resolution_duration_count\{.*judgment_name="refund-abuse".*\} 1/)).toBeDefined();
  } finally {
    await stop(demo);
  }
});
