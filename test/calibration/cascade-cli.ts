// The cascade app's `judgment` command line, as an app's own cli.ts would be:
//   node -r ./scripts/register.js test/calibration/cascade-cli.ts eval claim-triage --dataset=cases.json --suggest …
import { runJudgmentCli } from 'nestjs-judgment/cli';
import { CascadeAppModule } from './cascade-cli.app';

void runJudgmentCli(CascadeAppModule);
