/**
 * Fence removal over 172 KB of hostile untrusted text, shape by shape, against a baseline in the same run: the same
 * text copied one code point at a time into a buffer and joined (what any one-pass removal must at least spend). Prints the median of 9 runs of each, their ratio, and the machine load; fails when a shape takes 500 ms or more.
 * Ordinary prose with one `&` or a few tags is measured too: it must cost about a copy of the text, not a character-
 * by-character read of it. With `BENCH_BASE_TREE=<another worktree>` that tree's removeFenceTags runs beside this one
 * (alternating, same text), and the ratio of the two is printed.
 * Run: npm run bench:fence
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { removeFenceTags } from '../libs/judgment/src/engines/jev/fence';

const SIZE = 172_000;
const LIMIT_MS = 500;

const PROSE =
  'The headphones arrived with a cracked band and the left side is silent. I tried two phones and a laptop. ';

function fill(unit: string): string {
  return unit.repeat(Math.ceil(SIZE / unit.length));
}

const SHAPES: Record<string, string> = {
  'nested tags': `${'<untrusted_'.repeat(8000)}${'user_text>'.repeat(8000)}`,
  'openers only': fill('<'),
  'openers and spaces': fill('< '),
  'unclosed tags with attributes': fill('<untrusted_user_text x '),
  'one closer padded to the end': `</untrusted_user_text${' '.repeat(SIZE)}>`,
  'entity starts': fill('&#x0'),
  'encoded tags': fill('&lt;/untrusted_user_text&#x3e;'),
  'ordinary text with & and %': fill('Refund 100% of €35 & more, <b>now</b>. '),
  'prose with one &': `${fill(PROSE).slice(0, SIZE / 2)} Tom & Jerry ${fill(PROSE).slice(0, SIZE / 2)}`,
  'prose, a tag per sentence': fill(`${PROSE}I want 100% back, <b>now</b>. `),
};

/** removeFenceTags of BENCH_BASE_TREE, to run beside this tree's; undefined when not set. */
const baseRemove: ((text: string) => string) | undefined = process.env.BENCH_BASE_TREE
  ? (
      require(
        `${process.env.BENCH_BASE_TREE}/libs/judgment/src/engines/jev/fence`,
      ) as typeof import('../libs/judgment/src/engines/jev/fence')
    ).removeFenceTags
  : undefined;

function median(run: () => unknown): number {
  const times: number[] = [];
  for (let round = 0; round < 9; round++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[4];
}

/** This tree's removeFenceTags against another's on the same text, alternating: medians and the median ratio. */
function sideBySide(text: string, base: (text: string) => string): { baseMs: number; ratio: number } {
  const baseTimes: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < 9; round++) {
    const started = performance.now();
    base(text);
    const between = performance.now();
    removeFenceTags(text);
    const ended = performance.now();
    baseTimes.push(between - started);
    ratios.push((ended - between) / (between - started));
  }
  const middle = (values: number[]) => values.sort((a, b) => a - b)[4];
  return { baseMs: middle(baseTimes), ratio: middle(ratios) };
}

const rows = Object.entries(SHAPES).map(([shape, text]) => {
  const fence = median(() => removeFenceTags(text));
  const baseline = median(() => {
    const out: string[] = [];
    for (const char of text) out.push(char);
    return out.join('');
  });
  const base = baseRemove ? sideBySide(text, baseRemove) : undefined;
  return {
    shape,
    kb: Math.round(text.length / 1000),
    ms: fence.toFixed(1),
    baselineMs: baseline.toFixed(1),
    ratio: (fence / baseline).toFixed(fence < baseline ? 2 : 0),
    ...(base ? { baseTreeMs: base.baseMs.toFixed(1), 'this/base': base.ratio.toFixed(2) } : {}),
    fence,
  };
});
console.table(rows.map(({ fence: _, ...row }) => row));
console.log(
  `load average (1, 5, 15 min): ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}`,
);
const slow = rows.filter((row) => row.fence >= LIMIT_MS);
if (slow.length > 0) {
  console.error(`slower than ${LIMIT_MS} ms: ${slow.map((row) => row.shape).join(', ')}`);
  process.exitCode = 1;
}
