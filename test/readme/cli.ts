import { runJudgmentCli } from 'nestjs-judgment/cli';
import { AppModule } from './app.module';

// `node dist/cli.js status`, `node dist/cli.js eval refund-abuse --dataset=refund-abuse.dataset.json`, ...
void runJudgmentCli(AppModule);
