/**
 * Measures how far libs/judgment/src is from one-way layers, counting type-only imports:
 * file-level import cycles and the largest group of folders that reach one another (root files count as one folder).
 * Usage: node scripts/layer-figures.js [checkout]   (uses .dependency-cruiser.cjs for exclusions, not its rules)
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const SRC = 'libs/judgment/src/';
const root = process.argv[2] ? path.resolve(process.argv[2]) : path.join(__dirname, '..');
const output = execFileSync(
  process.execPath,
  [
    path.join(__dirname, '..', 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
    SRC,
    '--config',
    path.join(__dirname, '..', '.dependency-cruiser.cjs'),
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

/** The folder of a file; root files count as one folder '(root)', or each as its own node when `apart`. */
const folderOf = (file, apart) => {
  const parts = file.slice(SRC.length).split('/');
  return parts.length > 1 ? parts[0] : apart ? parts[0] : '(root)';
};
const files = new Map();
const folderGraph = (apart) => {
  const graph = new Map();
  for (const m of modules) {
    const from = folderOf(m.source, apart);
    graph.set(from, graph.get(from) ?? new Set());
    for (const d of m.dependencies) {
      if (d.resolved.startsWith(SRC) && folderOf(d.resolved, apart) !== from)
        graph.get(from).add(folderOf(d.resolved, apart));
    }
  }
  return graph;
};
for (const m of modules) {
  files.set(m.source, new Set(m.dependencies.filter((d) => d.resolved.startsWith(SRC)).map((d) => d.resolved)));
}

const cyclicFiles = components(files).filter((group) => group.length > 1);
const circularImports = modules.flatMap((m) => m.dependencies.filter((d) => d.circular)).length;
const largest = (graph) =>
  components(graph)
    .sort((a, b) => b.length - a.length)[0]
    .sort();
const folders = folderGraph(false);
const apart = folderGraph(true);
console.log(`files: ${files.size}, folders: ${folders.size}`);
console.log(`imports that close a file-level cycle: ${circularImports}`);
console.log(
  `file-level cycle groups: ${cyclicFiles.length} (${cyclicFiles.map((g) => g.length).join(', ') || 'none'} files)`,
);
for (const [label, graph] of [
  ['largest folder-level group', folders],
  ['the same with each root file on its own', apart],
]) {
  console.log(`${label}: ${largest(graph).length} of ${graph.size} (${largest(graph).join(', ')})`);
}
