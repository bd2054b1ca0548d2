// `nestjs-judgment/cli`: the `judgment` command line (commander over a Nest application context). A separate entry
// point, so apps that do not run the CLI never load commander, cli-table3 or cli-progress.
export { runJudgmentCli, type JudgmentCliOptions } from './judgment-cli';
