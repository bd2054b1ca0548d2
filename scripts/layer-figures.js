/**
 * Measures how far libs/judgment/src is from one-way layers, counting type-only imports:
 * file-level import cycles and the largest group of folders that reach one another (root files count as one folder).
 * Usage: node scripts/layer-figures.js   (uses .dependency-cruiser.cjs for resolution and exclusions, not its rules)
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const SRC = 'libs/judgment/src/';
const root = path.join(__dirname, '..');
const output = execFileSync(
  process.execPath,
  [
    path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
    SRC,
    '--config',
    '.dependency-cruiser.cjs',
    '--output-type',
    'json',
  ],
  { cwd: root, maxBuffer: 1 << 28 },
);
const modules = JSON.parse(output.toString()).modules.filter((m) => m.source.startsWith(SRC));

/** Tarjan's strongly connected components of a graph given as Map<node, Set<node>>. */
function components(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node), index.get(to)));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      found.push(group);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const folderOf = (file) => {
  const parts = file.slice(SRC.length).split('/');
  return parts.length > 1 ? parts[0] : '(root)';
};
const files = new Map();
const folders = new Map();
for (const m of modules) {
  files.set(m.source, files.get(m.source) ?? new Set());
  folders.set(folderOf(m.source), folders.get(folderOf(m.source)) ?? new Set());
  for (const d of m.dependencies) {
    if (!d.resolved.startsWith(SRC)) continue;
    files.get(m.source).add(d.resolved);
    if (folderOf(d.resolved) !== folderOf(m.source)) folders.get(folderOf(m.source)).add(folderOf(d.resolved));
  }
}

const cyclicFiles = components(files).filter((group) => group.length > 1);
const circularImports = modules.flatMap((m) => m.dependencies.filter((d) => d.circular)).length;
const folderGroups = components(folders).sort((a, b) => b.length - a.length);
console.log(`files: ${files.size}, folders: ${folders.size}`);
console.log(`imports that close a file-level cycle: ${circularImports}`);
console.log(
  `file-level cycle groups: ${cyclicFiles.length} (${cyclicFiles.map((g) => g.length).join(', ') || 'none'} files)`,
);
console.log(
  `largest folder-level group: ${folderGroups[0].length} of ${folders.size} (${folderGroups[0].sort().join(', ')})`,
);
