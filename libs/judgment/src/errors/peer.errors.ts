import { JudgmentError } from './judgment.error';

/** One peer that could not be used: absent (or failing to load), or installed in a version outside our range. */
export interface PeerProblem {
  /** The package name, e.g. `@nestjs/bullmq`. */
  readonly name: string;
  /** The version found, or `null` when the package could not be loaded at all. */
  readonly installed: string | null;
  /** The range nestjs-judgment's package.json declares for it. */
  readonly wanted: string;
}

/**
 * A feature was turned on (the queue, the Review HTTP adapter) whose peer dependencies are not installed, or are
 * installed in a version the package cannot use. Thrown once, at startup, naming every such package and the command
 * that installs them.
 */
export class MissingPeerDependency extends JudgmentError {
  constructor(
    readonly feature: string,
    readonly problems: readonly PeerProblem[],
  ) {
    const found = problems.map((peer) =>
      peer.installed === null
        ? `${peer.name} is not installed (or cannot be loaded)`
        : `${peer.name} ${peer.installed} is installed but ${peer.wanted} is needed`,
    );
    const install = problems.map((peer) =>
      peer.installed === null ? peer.name : `${peer.name}@${newest(peer.wanted)}`,
    );
    super(
      `${feature} needs peer dependencies of nestjs-judgment that this app cannot use: ${found.join('; ')}. ` +
        `Install them in your app: npm install ${install.join(' ')}`,
    );
  }
}

/**
 * Loads the peers a feature needs and checks their versions against the ranges of nestjs-judgment's package.json;
 * throws one MissingPeerDependency naming every peer that is absent or outside its range.
 */
export function requirePeers(feature: string, names: readonly string[]): void {
  // src/errors and dist/errors sit at the same depth, so this is the package's own package.json either way.
  const ranges: Record<string, string> = require('../../package.json').peerDependencies;
  const problems: PeerProblem[] = [];
  for (const name of names) {
    const wanted = ranges[name];
    try {
      require(name);
    } catch {
      problems.push({ name, installed: null, wanted });
      continue;
    }
    const installed = installedVersion(name);
    if (installed !== null && !satisfiesCaret(installed, wanted)) problems.push({ name, installed, wanted });
  }
  if (problems.length > 0) throw new MissingPeerDependency(feature, problems);
}

function installedVersion(name: string): string | null {
  try {
    return String(require(`${name}/package.json`).version);
  } catch {
    return null; // a package that hides its package.json: it loaded, so take it as it is
  }
}

/** Whether `version` meets a range of caret alternatives (`^12.0.0`, `^0.14.0 || ^0.15.0`), the only form we declare. */
function satisfiesCaret(version: string, range: string): boolean {
  const [major, minor, patch] = numbers(version);
  return range.split('||').some((alternative) => {
    const [wantedMajor, wantedMinor, wantedPatch] = numbers(alternative.trim().replace(/^\^/, ''));
    if (major !== wantedMajor) return false;
    if (major === 0 && minor !== wantedMinor) return false;
    return minor > wantedMinor || (minor === wantedMinor && patch >= wantedPatch);
  });
}

function numbers(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version.split(/[.-]/).map(Number);
  return [major, minor, patch];
}

/** The last alternative of a caret range: what `npm install name@…` should ask for. */
function newest(range: string): string {
  return range.split('||').at(-1)!.trim();
}
