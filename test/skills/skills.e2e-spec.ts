// The coding-agent skills shipped in libs/judgment/skills (SPEC §2.14), checked against the package itself: front
// matter, links, the `judgment` commands and options they name (read from the CLI's command classes), the TypeScript
// examples they mark complete (compiled with the repo's tsconfig, so `nestjs-judgment` resolves as in an app), and the
// threshold rule in every example.
import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import { CliContext } from '../../libs/judgment/src/cli/cli.context';
import { judgmentProgram } from '../../libs/judgment/src/cli/judgment.program';

const ROOT = join(__dirname, '..', '..');
const PACKAGE = join(ROOT, 'libs', 'judgment');
const SKILLS = join(PACKAGE, 'skills');

/** A fenced code block; `compileAs` is undefined when unmarked, null when marked `<!-- compile -->` without a name. */
interface CodeBlock {
  readonly lang: string;
  readonly code: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly compileAs: string | null | undefined;
}

/** A markdown file of the skills folder, split into prose and code blocks. */
interface Page {
  readonly path: string;
  /** Path relative to the skills folder, for messages. */
  readonly name: string;
  readonly text: string;
  readonly prose: string;
  readonly blocks: readonly CodeBlock[];
  /** Lines of `<!-- compile -->` markers not followed by a code block. */
  readonly strayMarkers: readonly number[];
}

const COMPILE_MARKER = /^<!--\s*compile(?::\s*([\w.-]+))?\s*-->$/;
const FENCE = /^(`{3,}|~{3,})\s*([\w-]*)/;

function readPage(path: string): Page {
  const text = readFileSync(path, 'utf8');
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  const strayMarkers: number[] = [];
  let open: { fence: string; lang: string; line: number; body: string[]; compileAs: string | null | undefined } | null =
    null;
  let marker: { name: string | null; line: number } | null = null;
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (open) {
      if (trimmed.startsWith(open.fence) && /^[`~]+$/.test(trimmed)) {
        blocks.push({ lang: open.lang, code: open.body.join('\n'), line: open.line, compileAs: open.compileAs });
        open = null;
      } else {
        open.body.push(line);
      }
      return;
    }
    const fence = FENCE.exec(trimmed);
    if (fence) {
      open = {
        fence: fence[1],
        lang: fence[2],
        line: index + 1,
        body: [],
        compileAs: marker ? marker.name : undefined,
      };
      marker = null;
      return;
    }
    const compile = COMPILE_MARKER.exec(trimmed);
    if (compile) {
      if (marker) strayMarkers.push(marker.line);
      marker = { name: compile[1] ?? null, line: index + 1 };
      return;
    }
    if (trimmed !== '' && marker) {
      strayMarkers.push(marker.line);
      marker = null;
    }
    prose.push(line);
  });
  if (marker) strayMarkers.push((marker as { line: number }).line);
  return { path, name: relative(SKILLS, path), text, prose: prose.join('\n'), blocks, strayMarkers };
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const skillFolders = readdirSync(SKILLS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(SKILLS, entry.name));
const pages = markdownFiles(SKILLS).map(readPage);

/** Inline code spans of a page's prose. */
function inlineCode(page: Page): string[] {
  return [...page.prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);
}

/** Relative link targets of a page's prose (code spans and code blocks excluded), without their #fragment. */
function relativeLinks(page: Page): string[] {
  const prose = page.prose.replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => target.replace(/#.*$/, ''));
}

/** The `judgment` commands and each one's long options, read from the CLI's commander program. */
function cliCommands(): Map<string, Set<string>> {
  const context = new CliContext(() => {
    throw new Error('Reading the commands needs no app.');
  }, console);
  const commands = new Map<string, Set<string>>();
  for (const command of judgmentProgram(context).commands) {
    const options = new Set<string>(['help']); // commander adds --help to every command
    for (const option of command.options) if (option.long) options.add(option.long.replace(/^--/, ''));
    for (const name of [command.name(), ...command.aliases()]) commands.set(name, options);
  }
  return commands;
}

/** A `judgment <command> …` mention: the command and the long options written on the same command line. */
interface Mention {
  readonly command: string;
  readonly options: readonly string[];
}

/**
 * Commands named in a page, in prose and code alike: `judgment` at the start of a line (a shell line), after a
 * backtick or a quote (inline code, a string in an example), or after "run".
 */
function mentions(page: Page): Mention[] {
  const text = page.text.replace(/\\\n\s*/g, ' '); // shell line continuations
  const pattern = /(?:^|[`'"]|\b[Rr]un\s+|\$\s+)judgment\s+([a-z][\w-]*(?::[\w-]+)?)([^\n`'"]*)/gm;
  return [...text.matchAll(pattern)].map((match) => ({ command: match[1], options: optionsIn(match[2]) }));
}

function optionsIn(text: string): string[] {
  return [...text.matchAll(/(?<![\w-])--([a-zA-Z][\w-]*)/g)].map((match) => match[1]);
}

/** A line of TypeScript comparing an answer with a number literal: a threshold. */
const THRESHOLD =
  /\.(?:above|below|between|labelsAbove)\(\s*-?\d|\.(?:confidence|probability|expected)\s*[<>]=?\s*-?\d|-?\d[\d.]*\s*[<>]=?\s*[\w.]+\.(?:confidence|probability|expected)\b/;

const isTypeScript = (block: CodeBlock) => block.lang === 'ts' || block.lang === 'typescript';

describe('coding-agent skills', () => {
  const commands = cliCommands();

  it('ships the skills folder with the package', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { files?: string[] };

    expect(manifest.files).toContain('skills');
    expect(skillFolders.length).toBeGreaterThan(0);
  });

  it('gives every skill a SKILL.md whose front matter names it after its folder and says when to use it', () => {
    const problems: string[] = [];
    for (const folder of skillFolders) {
      const skill = basename(folder);
      const file = join(folder, 'SKILL.md');
      const front = existsSync(file) ? /^---\n([\s\S]*?)\n---\n/.exec(readFileSync(file, 'utf8')) : null;
      if (!front) {
        problems.push(`${skill}: no SKILL.md starting with --- front matter ---`);
        continue;
      }
      const { name, description } = (parseYaml(front[1]) ?? {}) as { name?: unknown; description?: unknown };
      if (name !== skill) problems.push(`${skill}: name is ${JSON.stringify(name)}, not the folder's name`);
      if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(skill) || skill.length > 64) {
        problems.push(`${skill}: a skill's name is lowercase words joined by hyphens, at most 64 characters`);
      }
      if (typeof description !== 'string' || description.trim() === '' || description.length > 1024) {
        problems.push(`${skill}: the description must be a non-empty string of at most 1024 characters`);
      } else if (!/\bUse when\b/.test(description)) {
        problems.push(`${skill}: the description does not tell an agent when to use the skill ("Use when …")`);
      }
    }

    expect(skillFolders.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('links only to files that exist in the skills folder', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const link of relativeLinks(page)) {
        checked += 1;
        const target = resolve(dirname(page.path), link);
        const inside = !relative(SKILLS, target).startsWith(`..${sep}`);
        if (!inside || !existsSync(target)) broken.push(`${page.name} → ${link}`);
      }
    }

    expect(checked).toBeGreaterThan(0);
    expect(broken).toEqual([]);
  });

  it("reaches every page of a skill from that skill's SKILL.md", () => {
    const unreachable: string[] = [];
    for (const folder of skillFolders) {
      const reached = new Set<string>();
      const queue = [join(folder, 'SKILL.md')];
      while (queue.length > 0) {
        const path = queue.shift()!;
        if (reached.has(path) || !existsSync(path)) continue;
        reached.add(path);
        queue.push(...relativeLinks(readPage(path)).map((link) => resolve(dirname(path), link)));
      }
      for (const file of markdownFiles(folder)) if (!reached.has(file)) unreachable.push(relative(SKILLS, file));
    }

    expect(unreachable).toEqual([]);
  });

  it('keeps every inline code span on one line, so the commands in it are checked', () => {
    const split = pages.flatMap((page) =>
      page.prose
        .split('\n')
        .filter((line) => (line.match(/`/g) ?? []).length % 2 === 1)
        .map((line) => `${page.name}: ${line.trim()}`),
    );

    expect(split).toEqual([]);
  });

  it('names only judgment commands the CLI defines', () => {
    const unknown: string[] = [];
    let found = 0;
    for (const page of pages) {
      for (const { command } of mentions(page)) {
        found += 1;
        if (!commands.has(command)) unknown.push(`${page.name}: judgment ${command}`);
      }
    }

    expect(commands.has('eval')).toBe(true);
    expect(found).toBeGreaterThan(0);
    expect(unknown).toEqual([]);
  });

  it('uses only options the named command defines', () => {
    const wrong: string[] = [];
    let found = 0;
    for (const page of pages) {
      const mentioned = mentions(page);
      for (const { command, options } of mentioned) {
        for (const option of options) {
          found += 1;
          if (!commands.get(command)?.has(option)) wrong.push(`${page.name}: judgment ${command} --${option}`);
        }
      }
      // An option written on its own (`--decision=Strict`) must belong to a command the same page names.
      for (const code of inlineCode(page).filter((span) => span.startsWith('--'))) {
        for (const option of optionsIn(code)) {
          found += 1;
          if (!mentioned.some(({ command }) => commands.get(command)?.has(option))) {
            wrong.push(`${page.name}: --${option} (no command named on the page has it)`);
          }
        }
      }
    }

    expect(found).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it('marks every threshold in an example as calibrated or not calibrated', () => {
    const unmarked: string[] = [];
    let found = 0;
    for (const page of pages) {
      for (const block of page.blocks.filter(isTypeScript)) {
        block.code.split('\n').forEach((line, index) => {
          if (!THRESHOLD.test(line)) return;
          found += 1;
          if (!/\/\/.*\bcalibrated\b/.test(line))
            unmarked.push(`${page.name}:${block.line + 1 + index}: ${line.trim()}`);
        });
      }
    }

    expect(found).toBeGreaterThan(0);
    expect(unmarked).toEqual([]);
  });

  describe('examples marked complete', () => {
    // Under the repo (so `nestjs-judgment` resolves through the tsconfig paths), in a `tmp` folder that git, the repo's
    // type-check and its lint all skip. Named examples (`<!-- compile: refund.entity.ts -->`) can import each other.
    const dir = join(ROOT, 'test', 'skills', 'tmp', `examples-${process.pid}`);

    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
      if (readdirSync(dirname(dir)).length === 0) rmSync(dirname(dir), { recursive: true });
    });

    it('mark only TypeScript code blocks', () => {
      const misplaced = pages.flatMap((page) => [
        ...page.strayMarkers.map((line) => `${page.name}:${line}: marker not followed by a code block`),
        ...page.blocks
          .filter((block) => block.compileAs !== undefined && !isTypeScript(block))
          .map((block) => `${page.name}:${block.line}: marker on a ${block.lang || 'plain'} block`),
      ]);

      expect(misplaced).toEqual([]);
    });

    it('type-check against the package', () => {
      mkdirSync(dir, { recursive: true });
      const origins = new Map<string, { page: Page; block: CodeBlock }>();
      const duplicates: string[] = [];
      for (const page of pages) {
        for (const block of page.blocks.filter((b) => b.compileAs !== undefined && isTypeScript(b))) {
          const name =
            block.compileAs ?? `${page.name.replace(/\.md$/, '').split(sep).join('--')}--line-${block.line}.ts`;
          const file = join(dir, name.endsWith('.ts') ? name : `${name}.ts`);
          if (origins.has(file)) duplicates.push(`${page.name}:${block.line}: ${name} is already an example's name`);
          origins.set(file, { page, block });
          // `export {}` keeps every example a module, so examples without imports do not share a global scope.
          writeFileSync(file, `${block.code}\nexport {};\n`);
        }
      }

      const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
      const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
      const program = ts.createProgram({ rootNames: [...origins.keys()], options: { ...options, noEmit: true } });
      const errors = [...origins].flatMap(([file, { page, block }]) => {
        const source = program.getSourceFile(file)!;
        return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
          (diagnostic) => {
            const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
            const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
            return `${page.name}:${block.line + 1 + line}: ${message}`;
          },
        );
      });

      expect(origins.size).toBeGreaterThan(0);
      expect(duplicates).toEqual([]);
      expect(errors).toEqual([]);
    }, 120_000);
  });
});
