#!/usr/bin/env node
// The `judgment` bin: `judgment --app dist/app.module.js#AppModule status`, or `judgment status` with
// `"judgment": { "app": "dist/app.module.js#AppModule" }` in the package.json of the current folder.
import 'reflect-metadata';
import type { Command } from 'commander';
import { loadAppModule } from './app-module.loader';
import { CliContext } from './cli.context';
import { StderrLogger } from './cli.output';
import { judgmentProgram, runProgram } from './judgment.program';

// The --app option is read when a command first needs the app, after parsing.
const context: CliContext = new CliContext(
  () => loadAppModule(program.opts<{ app?: string }>().app, process.cwd()),
  new StderrLogger(),
);
const program: Command = judgmentProgram(context).option(
  '--app <file#Export>',
  'the compiled file of the app’s root module, and its export (default: "judgment.app" of ./package.json)',
);
void runProgram(program, context);
