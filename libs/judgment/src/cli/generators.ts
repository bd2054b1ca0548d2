import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { GeneratorError } from '../errors';

/** A class or enum the generated file imports: its name and where it is exported from. */
export interface Imported {
  readonly name: string;
  readonly file: string;
}

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await'
  ).split(' '),
);

/** Checks a class name for a generator: PascalCase letters and digits. */
export function checkClassName(name: string, what: string): string {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(name ?? '')) {
    throw new GeneratorError(`${what} must be a PascalCase class name such as RefundAbuse; got "${name ?? ''}".`);
  }
  return name;
}

/** `RefundAbuse` → `refund-abuse`. */
export function kebabCase(name: string): string {
  return name
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

/** `Refund` → `refund`; a reserved word becomes `subject`. */
export function propertyName(name: string): string {
  const camel = name.replace(/^[A-Z]+?(?=[A-Z][a-z]|$)|^[A-Z]/, (head) => head.toLowerCase());
  return RESERVED.has(camel) ? 'subject' : camel;
}

/**
 * Finds the one TypeScript file under `root` that exports `name` as a class (or, with `enumOnly`, an enum), skipping
 * node_modules, dist, declaration and test files. None or several is an error saying what to do.
 */
export function findExport(root: string, name: string, kind: 'class' | 'enum'): Imported {
  const pattern =
    kind === 'class'
      ? new RegExp(`export\\s+(?:declare\\s+)?(?:abstract\\s+)?class\\s+${name}\\b`)
      : new RegExp(`export\\s+(?:declare\\s+)?(?:const\\s+)?enum\\s+${name}\\b`);
  const found = sourceFiles(root).filter((file) => pattern.test(readFileSync(file, 'utf8')));
  const where = relative(process.cwd(), root) || '.';
  if (found.length === 0) {
    throw new GeneratorError(
      `No file under ${where} exports the ${kind} ${name}: create it first (generated files import it from there).`,
    );
  }
  if (found.length > 1) {
    throw new GeneratorError(
      `Several files under ${where} export the ${kind} ${name} (${found.map((f) => relative(root, f)).join(', ')}): ` +
        'keep one, so the generated import is unambiguous.',
    );
  }
  return { name, file: found[0] };
}

/**
 * The module specifier importing `file` from a file in `fromDir`: `../entities/refund.entity`, or with the `.js`
 * suffix an ES module needs under node16/nodenext resolution (see `importSuffix`).
 */
export function importPath(fromDir: string, file: string): string {
  const path = relative(fromDir, file).split(sep).join('/').replace(/\.ts$/, importSuffix(fromDir));
  return path.startsWith('.') ? path : `./${path}`;
}

/** The `module` and `moduleResolution` settings under which TypeScript checks imports as Node.js resolves them. */
const NODE_MODULES = /^node(?:16|18|20|next)$/i;

/**
 * `.js` when files in `dir` compile to ES modules that Node.js resolves itself: the nearest package.json says
 * `"type": "module"` and the nearest tsconfig.json sets `module` or `moduleResolution` to node16, node18, node20 or
 * nodenext (there a relative import needs its file's suffix). Otherwise none (CommonJS, or a bundler's resolution).
 */
export function importSuffix(dir: string): '' | '.js' {
  const manifest = nearest(dir, 'package.json');
  const tsconfig = nearest(dir, 'tsconfig.json');
  if (manifest === null || tsconfig === null) return '';
  const { type } = readJsonc(manifest) as { type?: unknown };
  if (type !== 'module') return '';
  const { module, moduleResolution } = compilerSettings(tsconfig);
  return [module, moduleResolution].some((setting) => NODE_MODULES.test(setting ?? '')) ? '.js' : '';
}

/** The nearest `name` from `dir` up, or null. */
function nearest(dir: string, name: string): string | null {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, name))) return join(at, name);
    if (dirname(at) === at) return null;
  }
}

/** `module` and `moduleResolution` of a tsconfig, following its `extends` (relative paths and packages). */
function compilerSettings(tsconfig: string, depth = 0): { module?: string; moduleResolution?: string } {
  const config = readJsonc(tsconfig) as { extends?: unknown; compilerOptions?: Record<string, unknown> };
  const own = config.compilerOptions ?? {};
  const parents = (Array.isArray(config.extends) ? config.extends : [config.extends]).filter(
    (parent): parent is string => typeof parent === 'string',
  );
  let inherited: { module?: string; moduleResolution?: string } = {};
  for (const parent of depth < 10 ? parents : []) {
    const file = parentConfig(dirname(tsconfig), parent);
    if (file) inherited = { ...inherited, ...compilerSettings(file, depth + 1) };
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    module: text(own.module) ?? inherited.module,
    moduleResolution: text(own.moduleResolution) ?? inherited.moduleResolution,
  };
}

function parentConfig(dir: string, parent: string): string | null {
  try {
    const path = parent.startsWith('.') ? resolve(dir, parent) : require.resolve(parent, { paths: [dir] });
    if (existsSync(path)) return path;
    return existsSync(`${path}.json`) ? `${path}.json` : null;
  } catch {
    return null;
  }
}

/** JSON with comments and trailing commas, as tsconfig files are written; an unreadable file reads as {}. */
function readJsonc(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  // Outside strings: drops comments, then commas before a closing bracket.
  const outsideStrings = (pattern: RegExp, source: string) =>
    source.replace(new RegExp(`"(?:[^"\\\\]|\\\\.)*"|${pattern.source}`, 'g'), (match) =>
      match.startsWith('"') ? match : '',
    );
  const stripped = outsideStrings(/,(?=\s*[}\]])/, outsideStrings(/\/\/[^\n]*|\/\*[\s\S]*?\*\//, text));
  try {
    return JSON.parse(stripped) as unknown;
  } catch {
    return {};
  }
}

/** Writes a generated file, refusing to overwrite an existing one unless forced; resolves to its path. */
export function writeGenerated(path: string, content: string, force: boolean): string {
  if (existsSync(path) && !force) {
    throw new GeneratorError(`${relative(process.cwd(), path)} already exists: pass --force to overwrite it.`);
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

/** The source root generators search for imports: the folder holding the target folder (`src` of `src/judgments`). */
export function sourceRoot(dir: string): string {
  return dirname(resolve(dir));
}

function sourceFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(root, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (/\.ts$/.test(entry.name) && !/\.(d|spec|e2e-spec|test)\.ts$/.test(entry.name)) files.push(path);
  }
  return files;
}

/** The source of a new Judgment class: no Evidence and no Questions yet, with hints on how to write them. */
export function judgmentSource(className: string, dir: string, subject: Imported | null): string {
  const clashes = subject !== null && (subject.name === className || subject.name === 'Judgment');
  const subjectType = subject === null ? 'object' : clashes ? `${subject.name}Subject` : subject.name;
  const property = subject === null ? 'subject' : propertyName(subject.name);
  const subjectImport =
    subject === null
      ? ''
      : `import { ${clashes ? `${subject.name} as ${subjectType}` : subject.name} } from '${importPath(resolve(dir), subject.file)}';\n`;
  return `import { Judgment } from 'nestjs-judgment';
${subjectImport}
/** ${className}: what the Engine is asked about ${subject === null ? 'its Subject' : `a ${subject.name}`}. */
@Judgment({ name: '${kebabCase(className)}' })
export class ${className} implements Judgment {
  constructor(readonly ${property}: ${subjectType}) {}

  evidence() {
    return {
      // Show each field explicitly, e.g. order: { item: this.${property}.item }.
      // Wrap end-user text in Evidence.untrusted(...): the Engine reads it as a claim, never as instructions.
      // Leave out facts the app already knows (counts, totals, history): the Decision reads them from the Subject.
    };
  }

  questions() {
    return {
      // Ask about the world, never what to do, e.g.
      // abusive: Likelihood.that('Is this request an attempt to abuse the policy?'),
    };
  }

  // Once its Decision exists (judgment make:decision), name it: @Judgment({ name, decision: () => YourDecision }).
}
`;
}

/**
 * The source of a new Decision class. It holds no numbers at all (thresholds come from calibration, never from a
 * guess) and throws until it is calibrated.
 */
export function decisionSource(className: string, dir: string, judgment: Imported, outcome: Imported): string {
  const from = resolve(dir);
  return `import { type Assessment, Decision } from 'nestjs-judgment';
import { ${judgment.name} } from '${importPath(from, judgment.file)}';
import { ${outcome.name} } from '${importPath(from, outcome.file)}';

/** ${className}: the ${outcome.name} of an Assessment of ${judgment.name}. Not calibrated yet. */
@Decision({ outcomes: ${outcome.name}, review: [] })
export class ${className} implements Decision<${judgment.name}, ${outcome.name}> {
  decide(assessment: Assessment<${judgment.name}>, judgment: ${judgment.name}): ${outcome.name} {
    // One named condition per branch; the order of the branches is their priority.
    // Facts the app already knows come from the judgment's Subject, not from the Engine.
    // List the Outcome that needs a person in review: [...] and put that Review band around the uncertain answers,
    // so a wobbling answer moves between an automatic Outcome and Review, never between two automatic Outcomes.
    // Take every threshold from judgment eval against labelled cases, never from a guess, e.g.
    // const abusive = assessment.likelihood('abusive');
    // if (abusive.above(CALIBRATED_THRESHOLD)) return ${outcome.name}.SomeOutcome;
    void assessment;
    void judgment;
    throw new Error(
      '${className} is not calibrated yet: run judgment eval ${judgment.name} --dataset=<labelled cases> --decision=${className}',
    );
  }
}
`;
}
