import { type JudgmentModuleOptions } from 'nestjs-judgment';
import { KeywordEngine } from './keyword.engine';

/** The module options written out, instead of judgmentOptionsFromEnv(). */
export const judgmentOptions: JudgmentModuleOptions = {
  engine: 'jev', // the default connection
  // Drivers of your own, by name: a connection names one with `driver: 'keywords'`.
  drivers: { keywords: (config, { name }) => new KeywordEngine(name, (config.keywords as string[]) ?? []) },
  engines: {
    jev: {
      driver: 'jev',
      key: process.env.TYPESAFE_API_KEY,
      url: process.env.TYPESAFE_BASE_URL, // default https://api.typesafe.ai
      model: 'jev-1.13.0', // pinned: the model your thresholds were calibrated against
      timeout: 10, // seconds per attempt
      retries: 3, // of 429 and 529 answers only
      budget: 2_000_000, // input tokens this process may spend; then EngineBudgetExhausted, no request sent
      limits: { requestsPerMinute: 1200 }, // the account's limit, shared by every process (see Running at scale)
      price: { inputPerMillion: 0.5, outputPerMillion: 2, currency: 'USD' }, // your contract's: records carry the cost
    },
    laya: { driver: 'jev', url: 'http://localhost:8000', requireKey: false, model: 'english', maxLabels: 20 },
    mock: { driver: 'mock', model: 'mock-1.0.0' },
    keywords: { driver: 'keywords', keywords: ['refund twice', 'chargeback'] },
  },
  throwOnFailure: true,
  persistence: { enabled: true, required: true, evidence: true, retentionDays: 365 },
  limiter: { maxWait: 10 }, // seconds an inline call waits for a slot under `limits`; Redis from the queue if on
  log: true,
};
