import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppModule } from './cli.context';
import { CliUsageError } from './cli.errors';

const EXAMPLE = 'dist/app.module.js#AppModule';

/** Metadata keys @Module() defines (one per key given), which mark a class as a Nest module. */
const MODULE_KEYS = ['imports', 'providers', 'controllers', 'exports'];

/**
 * The app's root module for the `judgment` bin: `app` (`--app <file>[#Export]`), else the `judgment.app` field of the
 * package.json in `cwd`; the file is resolved from `cwd`. Without `#Export`, the file's default export or its only
 * Nest module export. Node ≥ 20.19 requires ES modules too, so compiled ESM apps load like CommonJS ones.
 */
export function loadAppModule(app: string | undefined, cwd: string): AppModule {
  const spec = app ?? appFromPackageJson(cwd);
  const hash = spec.lastIndexOf('#');
  const file = hash < 0 ? spec : spec.slice(0, hash);
  const name = hash < 0 ? null : spec.slice(hash + 1);
  const exports = requireFile(file, cwd);
  if (isNestModule(exports)) return exports;
  const names = Object.keys(exports).sort();
  const modules = names.filter((key) => isNestModule(exports[key]));
  const found = `it exports ${names.join(', ') || 'nothing'}`;
  if (name !== null && name !== '') {
    if (!(name in exports)) {
      throw new CliUsageError(`${file} has no export named ${name}: ${found}; ${suggest(file, modules)}`);
    }
    if (!isNestModule(exports[name])) {
      throw new CliUsageError(
        `${file}#${name} is not a Nest module (a class decorated with @Module() or a dynamic module): ${found}; ` +
          suggest(file, modules),
      );
    }
    return exports[name] as AppModule;
  }
  if (isNestModule(exports.default)) return exports.default;
  if (modules.length === 1) return exports[modules[0]] as AppModule;
  if (modules.length > 1) {
    throw new CliUsageError(
      `${file} exports several Nest modules (${modules.join(', ')}): name the root one, --app ${file}#${modules[0]}.`,
    );
  }
  throw new CliUsageError(`${file} exports no Nest module: ${found}; ${suggest(file, modules)}`);
}

function appFromPackageJson(cwd: string): string {
  const path = join(cwd, 'package.json');
  let field: unknown;
  if (existsSync(path)) {
    try {
      field = (JSON.parse(readFileSync(path, 'utf8')) as { judgment?: { app?: unknown } }).judgment?.app;
    } catch (error) {
      throw new CliUsageError(`${path} is not valid JSON (${(error as Error).message}); fix it or pass --app.`);
    }
  }
  if (typeof field === 'string' && field !== '') return field;
  if (field !== undefined) {
    throw new CliUsageError(
      `"judgment.app" in ${path} must be a path such as "${EXAMPLE}"; it is ${JSON.stringify(field)}.`,
    );
  }
  throw new CliUsageError(
    `The judgment command needs your app's root module: pass --app ${EXAMPLE}, or add ` +
      `"judgment": { "app": "${EXAMPLE}" } to ${path} (paths are relative to the current folder, ${cwd}).`,
  );
}

function requireFile(file: string, cwd: string): Record<string, unknown> {
  let path: string;
  try {
    path = require.resolve(resolve(cwd, file));
  } catch {
    throw new CliUsageError(
      `The app module file ${file} does not exist (looked for ${resolve(cwd, file)}). Point --app at your compiled ` +
        `root module, e.g. --app ${EXAMPLE} (build the app first).`,
    );
  }
  return require(path) as Record<string, unknown>;
}

function isNestModule(value: unknown): value is AppModule {
  if (typeof value === 'function') return MODULE_KEYS.some((key) => Reflect.getOwnMetadata(key, value) !== undefined);
  return typeof value === 'object' && value !== null && typeof (value as { module?: unknown }).module === 'function';
}

function suggest(file: string, modules: string[]): string {
  return modules.length > 0
    ? `pass --app ${file}#${modules[0]}.`
    : `pass the file of your root module, e.g. --app ${EXAMPLE}.`;
}
