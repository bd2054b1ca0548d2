/**
 * Fence removal over 172 KB of hostile untrusted text, shape by shape, against a baseline in the same run: the same
 * text copied one code point at a time into a buffer and joined (what any one-pass removal must at least spend). Prints the median of 9 runs of each, their ratio, and the machine load; fails when a shape takes 500 ms or more.
 * Run: npm run bench:fence
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { removeFenceTags } from '../libs/judgment/src/engines/jev/fence';

const SIZE = 172_000;
const LIMIT_MS = 500;

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
};

function median(run: () => unknown): number {
  const times: number[] = [];
  for (let round = 0; round < 9; round++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[4];
}

const rows = Object.entries(SHAPES).map(([shape, text]) => {
  const fence = median(() => removeFenceTags(text));
  const baseline = median(() => {
    const out: string[] = [];
    for (const char of text) out.push(char);
    return out.join('');
  });
  return {
    shape,
    kb: Math.round(text.length / 1000),
    ms: fence.toFixed(1),
    baselineMs: baseline.toFixed(1),
    ratio: (fence / baseline).toFixed(0),
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
