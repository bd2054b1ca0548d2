// `nestjs-judgment/cli`: the `judgment` command line (nest-commander). A separate entry point, so apps that do not
// run the CLI never load nest-commander.
export {
  JUDGMENT_COMMANDS,
  JudgmentCommandModule,
  runJudgmentCli,
  type JudgmentCliOptions,
} from './judgment-command.module';
