/**
 * The support desk's `judgment` command line, over the app's own root module:
 *   node -r ./scripts/register.js apps/support-desk/src/cli.ts status
 *   node -r ./scripts/register.js apps/support-desk/src/cli.ts eval refund-abuse --dataset=apps/support-desk/datasets/refund-abuse.json
 * It never runs queue workers; in the embedded default it asks the in-process Jev simulator.
 */
import 'reflect-metadata';
import { runJudgmentCli } from 'nestjs-judgment/cli';
import { supportDeskConfig } from './config/support-desk.config';
import { SupportDeskModule } from './support-desk.module';

void runJudgmentCli(SupportDeskModule.forRoot(supportDeskConfig(), 'api'));
