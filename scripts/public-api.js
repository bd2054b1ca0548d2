/**
 * Lists the exports of each entry point of nestjs-judgment (runtime values and types), as a user's import sees them.
 * Usage: node scripts/public-api.js [--names]
 */
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const { paths } = require(path.join(root, 'tsconfig.json')).compilerOptions;
const entries = Object.entries(paths).map(([name, [file]]) => [name, path.join(root, file)]);
const program = ts.createProgram(
  entries.map(([, file]) => file),
  { experimentalDecorators: true, skipLibCheck: true, noEmit: true },
);
const checker = program.getTypeChecker();
for (const [name, file] of entries) {
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(file));
  const exported = checker.getExportsOfModule(symbol).map((s) => {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    return { name: s.name, runtime: (target.flags & ts.SymbolFlags.Value) !== 0 };
  });
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
