// Packs libs/judgment as npm would publish it (`npm pack`, whose prepack script builds dist) into a folder, and
// says what the tarball holds. Shared by `npm run check:package` and the consumer test; run directly
// (`npm run pack:library`) it installs the dependencies on a fresh clone first, like `npm run demo`, and writes the
// tarball at the repository's root.
const { execFileSync } = require('node:child_process');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const LIBRARY = join(ROOT, 'libs', 'judgment');

/** Packs the library into `destination`; returns the tarball's path, size in bytes and file count. */
function packLibrary(destination) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const output = execFileSync(npm, ['pack', '--json', '--pack-destination', destination], {
    cwd: LIBRARY,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // npm prints the lifecycle scripts' output (prepack's build) on stderr, so stdout is the JSON report alone.
  const [report] = JSON.parse(output);
  return {
    tarball: join(destination, report.filename),
    size: report.size,
    unpackedSize: report.unpackedSize,
    entryCount: report.entryCount,
    files: report.files.map((file) => file.path),
  };
}

module.exports = { LIBRARY, packLibrary };

if (require.main === module) {
  require('./ensure-installed')();
  const { tarball, size, entryCount } = packLibrary(ROOT);
  console.log(`Wrote ${relative(ROOT, tarball)} (${Math.round(size / 1024)} KB, ${entryCount} files).`);
}
