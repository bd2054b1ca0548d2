/**
 * The support desk's OpenTelemetry metrics: with SUPPORT_DESK_METRICS_PORT set, the metrics SDK is registered with
 * the official Prometheus exporter, which serves `GET /metrics` on that port. Imported first by the entry points
 * (demo.ts, main.ts, worker.ts), so the MeterProvider exists before Nest starts. Unset, nothing is registered and
 * nestjs-judgment's metrics stay no-ops.
 */
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

const port = process.env.SUPPORT_DESK_METRICS_PORT;
if (port) {
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PrometheusExporter({ port: Number(port) })] }));
}
