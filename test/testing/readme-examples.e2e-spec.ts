// The "Testing your Judgments" docs show the example files of test/testing/readme/ exactly as they run.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const docs = readFileSync(join(__dirname, '../../libs/judgment/src/testing/TESTING.md'), 'utf8');
const examples = join(__dirname, 'readme');
const files = readdirSync(examples).filter((file) => file.endsWith('.ts'));
const blocks = [...docs.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);

it.each(files)('TESTING.md shows %s verbatim', (file) => {
  expect(blocks).toContain(readFileSync(join(examples, file), 'utf8'));
});

it('every TypeScript block in TESTING.md is an example file that runs', () => {
  const contents = files.map((file) => readFileSync(join(examples, file), 'utf8'));
  expect(blocks.filter((block) => !contents.includes(block))).toEqual([]);
});
