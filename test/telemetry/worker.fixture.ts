// The worker process of telemetry.e2e-spec.ts: the OpenTelemetry SDK registered before the app starts, the assess and
// decide workers on the suite's prefix. Prints `ready` once started; on SIGTERM it closes the app, then writes every
// finished span to TW_SPANS for the test to read.
import { registerTelemetry, startTelemetryApp, writeSpans } from './telemetry.fixtures';

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`worker.fixture.ts needs ${name}.`);
    return value;
  };
  const telemetry = registerTelemetry();
  const app = await startTelemetryApp({
    database: env('TW_DATABASE'),
    prefix: env('TW_PREFIX'),
    simulatorUrl: env('TW_SIMULATOR_URL'),
    workers: true,
  });
  process.once('SIGTERM', () => {
    void app.close().then(() => {
      writeSpans(env('TW_SPANS'), telemetry.spans);
      process.exit(0);
    });
  });
  console.log('ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
