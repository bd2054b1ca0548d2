// telemetry.ts: load it before the app starts, e.g. `node -r ./dist/telemetry.js dist/main.js`.
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

metrics.setGlobalMeterProvider(
  new MeterProvider({ readers: [new PrometheusExporter({ port: Number(process.env.METRICS_PORT ?? 9464) })] }),
);
