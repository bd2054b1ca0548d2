// What the review desk's browser suites share: the support desk app on its own database with a Jev simulator behind
// it (agents alice and bob unless told otherwise), and axe-core's serious and critical violations of a page.
import type { INestApplication } from '@nestjs/common';
import { JevSimulator } from 'nestjs-judgment/simulator';
import type { Page } from 'playwright-core';
import { startApi } from '../http/support';
import { databaseUrl, recreateDatabase } from '../support/postgres';

export interface DeskApp {
  readonly sim: JevSimulator;
  readonly api: INestApplication;
  /** The app's URL on 127.0.0.1. */
  readonly base: string;
}

/** The support desk on a fresh `database`, its Engine a Jev simulator keyed `key`, listening on a free port. */
export async function startDeskApp(database: string, key: string, env: Record<string, string> = {}): Promise<DeskApp> {
  await recreateDatabase(database);
  const sim = new JevSimulator({ apiKey: key });
  const url = await sim.start(0);
  const api = await startApi({
    DATABASE_URL: databaseUrl(database),
    TYPESAFE_API_KEY: key,
    TYPESAFE_BASE_URL: url,
    JUDGMENT_JEV_RETRIES: '0',
    JUDGMENT_LOG: 'false',
    SUPPORT_DESK_AGENTS: 'alice,bob',
    ...env,
  });
  await api.listen(0, '127.0.0.1');
  return { sim, api, base: (await api.getUrl()).replace('[::1]', '127.0.0.1') };
}

/**
 * axe-core's serious and critical violations on the page (WCAG 2 A and AA rules, best practices). The page's context
 * must bypass its CSP (`bypassCSP: true`), which forbids the injected script.
 */
export async function seriousViolations(page: Page): Promise<Array<{ id: string; impact: string; nodes: number }>> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const violations = await page.evaluate(async () => {
    const scope = globalThis as any;
    const result = await scope.axe.run(scope.document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return violations.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
}
