/**
 * Lists the exports of each entry point of nestjs-judgment (runtime values and types), as a user's import sees them.
 * Usage: node scripts/public-api.js [--names]. `entryPointExports()` gives the same to a test.
 */
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..');

/** Each entry point (`nestjs-judgment`, `nestjs-judgment/drivers`, ...) with its exports, from tsconfig's paths. */
function entryPointExports() {
  const { paths } = require(path.join(root, 'tsconfig.json')).compilerOptions;
  const entries = Object.entries(paths).map(([name, [file]]) => [name, path.join(root, file)]);
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    { experimentalDecorators: true, skipLibCheck: true, noEmit: true },
  );
  const checker = program.getTypeChecker();
  return entries.map(([name, file]) => {
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(file));
    const exported = checker.getExportsOfModule(symbol).map((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return { name: s.name, runtime: (target.flags & ts.SymbolFlags.Value) !== 0 };
    });
    return { name, exported };
  });
}

if (require.main === module) {
  for (const { name, exported } of entryPointExports()) {
    const runtime = exported.filter((e) => e.runtime).length;
    console.log(`${name}: ${exported.length} (${runtime} runtime, ${exported.length - runtime} type-only)`);
    if (process.argv.includes('--names')) {
      console.log(
        `  ${exported
          .map((e) => (e.runtime ? e.name : `type ${e.name}`))
          .sort()
          .join(', ')}`,
      );
    }
  }
}

module.exports = { entryPointExports };
