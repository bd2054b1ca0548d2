import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import { loadAppModule } from './app-module.loader';
import { CliUsageError } from './cli.errors';

// Compiled app files as the bin meets them: CommonJS, decorated the way @Module({ imports: [] }) decorates a class.
const MODULE = (name: string) => `class ${name} {}\nReflect.defineMetadata('imports', [], ${name});\n`;

describe('loadAppModule', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'judgment-loader-'));
  let files = 0;

  /** Writes a CommonJS file into cwd and returns its path relative to cwd. */
  const file = (source: string): string => {
    const name = `app-${(files += 1)}.js`;
    writeFileSync(join(cwd, name), source);
    return name;
  };

  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('loads the export named after #', () => {
    const path = file(`${MODULE('AppModule')}${MODULE('AdminModule')}module.exports = { AppModule, AdminModule };`);

    expect((loadAppModule(`${path}#AdminModule`, cwd) as { name: string }).name).toBe('AdminModule');
  });

  it('takes the only Nest module export when no # is given', () => {
    const path = file(`${MODULE('AppModule')}module.exports = { AppModule, dataSource: {} };`);

    expect((loadAppModule(path, cwd) as { name: string }).name).toBe('AppModule');
  });

  it('takes the default export when no # is given', () => {
    const path = file(`${MODULE('AppModule')}${MODULE('Other')}module.exports = { default: AppModule, Other };`);

    expect((loadAppModule(path, cwd) as { name: string }).name).toBe('AppModule');
  });

  it('accepts a dynamic module export', () => {
    const path = file(`${MODULE('AppModule')}module.exports = { CliModule: { module: AppModule, imports: [] } };`);

    expect(loadAppModule(`${path}#CliModule`, cwd)).toMatchObject({ imports: [] });
  });

  it('asks for a name when the file exports several Nest modules', () => {
    const path = file(`${MODULE('AppModule')}${MODULE('AdminModule')}module.exports = { AppModule, AdminModule };`);

    expect(() => loadAppModule(path, cwd)).toThrow(
      new CliUsageError(
        `${path} exports several Nest modules (AdminModule, AppModule): name the root one, --app ${path}#AdminModule.`,
      ),
    );
  });

  it('says what the file exports when none is a Nest module', () => {
    const path = file(`class Refund {}\nmodule.exports = { Refund, dataSource: {} };`);

    expect(() => loadAppModule(path, cwd)).toThrow(
      new CliUsageError(
        `${path} exports no Nest module: it exports Refund, dataSource; pass the file of your root module, e.g. ` +
          '--app dist/app.module.js#AppModule.',
      ),
    );
  });

  it('refuses an export that is not a Nest module, naming the one that is', () => {
    const path = file(`${MODULE('AppModule')}class Refund {}\nmodule.exports = { AppModule, Refund };`);

    expect(() => loadAppModule(`${path}#Refund`, cwd)).toThrow(
      new CliUsageError(
        `${path}#Refund is not a Nest module (a class decorated with @Module() or a dynamic module): it exports ` +
          `AppModule, Refund; pass --app ${path}#AppModule.`,
      ),
    );
  });

  it('says how to point it at the app when neither --app nor the package.json field is there', () => {
    const empty = mkdtempSync(join(cwd, 'no-package-'));

    expect(() => loadAppModule(undefined, empty)).toThrow(
      new CliUsageError(
        "The judgment command needs your app's root module: pass --app dist/app.module.js#AppModule, or add " +
          `"judgment": { "app": "dist/app.module.js#AppModule" } to ${join(empty, 'package.json')} (paths are ` +
          `relative to the current folder, ${empty}).`,
      ),
    );
  });

  it('reads the "judgment.app" field of package.json, relative to the current folder', () => {
    const project = mkdtempSync(join(cwd, 'project-'));
    writeFileSync(join(project, 'app.js'), `${MODULE('AppModule')}module.exports = { AppModule };`);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ judgment: { app: 'app.js' } }));

    expect((loadAppModule(undefined, project) as { name: string }).name).toBe('AppModule');
  });
});
