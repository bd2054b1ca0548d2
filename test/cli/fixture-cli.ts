// The fixture app's `judgment` command line, as an app's own cli.ts would be:
//   node -r ./scripts/register.js test/cli/fixture-cli.ts eval refund-abuse --dataset=cases.json --json
import { runJudgmentCli } from 'nestjs-judgment/cli';
import { FixtureAppModule } from './fixture-app.module';

void runJudgmentCli(FixtureAppModule);
