#!/usr/bin/env node
/**
 * Writes the support desk's labelled calibration datasets, 600 cases each, drawn from a known distribution (seeded,
 * so the files are reproducible), for the README's "From calibration to production" walk-through and the demo's lock:
 *   apps/support-desk/datasets/refund-abuse.calibration.json
 *   apps/support-desk/datasets/ticket-routing.calibration.json
 *   apps/support-desk/datasets/post-moderation.calibration.json
 * Each text carries the Jev simulator's `[[key=target:p]]` markers, so the simulated Engine answers with the drawn
 * probability; the label is drawn from that probability (a calibrated model), so a threshold's true error is known.
 *   node scripts/make-calibration-dataset.js
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const CASES = 600;

/** A seeded PRNG (mulberry32): uniform floats in [0, 1). */
function seeded(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (p) => Math.round(p * 1000) / 1000;

/** A sharp model: half the cases clearly one way, 40 % clearly the other, a tenth unclear. */
function sharpProbability(random) {
  const kind = random();
  return kind < 0.5 ? random() * 0.03 : kind < 0.9 ? 0.97 + random() * 0.03 : 0.03 + random() * 0.94;
}

function refundAbuse() {
  const random = seeded(20261201);
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
    const probability = round(sharpProbability(random));
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
  return cases;
}

/**
 * Tickets: most name a team the Engine picks with a drawn probability (the team is right with that probability, else
 * another team is); a tenth describe a critical problem, which the Decision sends to triage (Review) — labelled with
 * the team triage routes it to, as every case's label is the Outcome a reviewer settles on.
 */
function ticketRouting() {
  const random = seeded(20261202);
  const teams = {
    billing: ['Charged twice', 'My card was charged twice for the March invoice.'],
    technical: ['App crashes', 'The app closes as soon as I open the reports tab.'],
    account: ['Locked out', 'I cannot sign in since I changed my password.'],
  };
  const names = Object.keys(teams);
  const cases = [];
  for (let i = 0; i < CASES; i += 1) {
    const kind = random();
    const team = names[Math.floor(random() * names.length)];
    const [subject, body] = teams[team];
    if (kind < 0.1) {
      cases.push({
        subject: {
          subject: `${subject}, urgent`,
          body: `${body} Nothing works for the whole company. (ticket ${i + 1}) [[department=${team}:0.9]] [[problem=0.97]] [[severity=3:0.9]]`,
        },
        expected: team, // where the triage desk sends it
        truth: { problem: true },
      });
      continue;
    }
    // The Engine's probability for its team: mostly sure, sometimes torn.
    const p = round(random() < 0.8 ? 0.9 + random() * 0.09 : 0.35 + random() * 0.55);
    const right = random() < p;
    const others = names.filter((name) => name !== team);
    const truth = right ? team : others[Math.floor(random() * others.length)];
    const severity = Math.floor(random() * 3);
    cases.push({
      subject: {
        subject,
        body: `${body} (ticket ${i + 1}) [[department=${team}:${p}]] [[problem=0.95]] [[severity=${severity}:0.8]]`,
      },
      expected: truth,
      truth: { problem: true },
    });
  }
  return cases;
}

/** Posts: each harm's probability drawn from the sharp model; a post should be removed when any harm is true. */
function postModeration() {
  const random = seeded(20261203);
  const harms = ['spam', 'harassment', 'hate', 'personal_data'];
  const bodies = [
    'Loved the new release, thanks to the team!',
    'Has anyone tried the beta on a tablet?',
    'Check the pinned thread before posting.',
    'Great meetup yesterday, see you next month.',
  ];
  const cases = [];
  for (let i = 0; i < CASES; i += 1) {
    // Most posts are clean; a third carry one harm drawn from the sharp model.
    const harm = random() < 0.35 ? harms[Math.floor(random() * harms.length)] : null;
    const probability = round(harm === null ? random() * 0.03 : sharpProbability(random));
    const harmful = random() < probability;
    const markers = harm === null ? `[[p=${probability}]]` : `[[harms.${harm}=${probability}]] [[p=0.01]]`;
    const truth = Object.fromEntries(harms.map((name) => [`harms.${name}`, name === harm && harmful]));
    cases.push({
      subject: { author: `member${(i % 40) + 1}`, body: `${bodies[i % bodies.length]} (post ${i + 1}) ${markers}` },
      expected: harmful ? 'remove' : 'publish',
      truth,
    });
  }
  return cases;
}

const datasets = {
  'refund-abuse': refundAbuse(),
  'ticket-routing': ticketRouting(),
  'post-moderation': postModeration(),
};
for (const [judgment, cases] of Object.entries(datasets)) {
  const file = join(__dirname, '..', 'apps', 'support-desk', 'datasets', `${judgment}.calibration.json`);
  writeFileSync(file, `${JSON.stringify(cases, null, 2)}\n`);
  console.log(`Wrote ${cases.length} cases to ${file}`);
}
