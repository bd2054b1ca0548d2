#!/usr/bin/env node
/**
 * Writes apps/support-desk/datasets/refund-abuse.calibration.json: 600 labelled refund requests drawn from a known
 * distribution (seeded, so the file is reproducible), for the README's "From calibration to production" walk-through.
 * Each explanation carries the Jev simulator's markers, so the simulated Engine answers `abusive` with the drawn
 * probability; the label is drawn from that probability (a calibrated model), so a threshold's true error is known.
 *   node scripts/make-calibration-dataset.js
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const CASES = 600;
let state = 20261201;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const items = [
  ['Wireless headphones', 89.9, 'The left earbud stopped charging after two weeks.'],
  ['Desk lamp', 39, 'It arrived with a broken switch; photo attached.'],
  ['Running shoes', 120, 'The sole came off on the second run.'],
  ['Gaming laptop', 1899, 'Never arrived, although the tracking says I signed for it.'],
  ['Evening dress', 310, 'Wore it once to a wedding, it does not fit any more.'],
  ['Coffee grinder', 65, 'It grinds unevenly and makes a grinding noise.'],
  ['Smartwatch', 249, 'Box was empty when I opened it.'],
  ['Winter jacket', 180, 'The zip broke on the first day.'],
];

const cases = [];
for (let i = 0; i < CASES; i += 1) {
  // A sharp model: most requests are clearly fine or clearly abusive, a tenth are unclear.
  const kind = random();
  const p = kind < 0.5 ? random() * 0.03 : kind < 0.9 ? 0.97 + random() * 0.03 : 0.03 + random() * 0.94;
  const probability = Math.round(p * 1000) / 1000;
  const abusive = random() < probability;
  const [item, amountEur, explanation] = items[i % items.length];
  cases.push({
    subject: {
      item,
      amountEur,
      explanation: `${explanation} (request ${i + 1}) [[abusive=${probability}]] [[credibility=3:0.8]]`,
      refundsThisYear: i % 3,
    },
    expected: abusive ? 'reject' : 'approve',
    truth: { abusive },
  });
}
const file = join(__dirname, '..', 'apps', 'support-desk', 'datasets', 'refund-abuse.calibration.json');
writeFileSync(file, `${JSON.stringify(cases, null, 2)}\n`);
console.log(`Wrote ${cases.length} cases to ${file}`);
