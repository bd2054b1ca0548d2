import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';
import { JudgmentLogger, logLine } from './judgment.logger';

const options = { log: true } as ConstructorParameters<typeof JudgmentLogger>[0];

/** Captures what a ConsoleLogger writes to stdout/stderr while `run` runs. */
function written(run: () => void): string {
  const chunks: string[] = [];
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (chunks.push(String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (chunks.push(String(chunk)), true));
  try {
    run();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return chunks.join('');
}

const context = {
  judgment: 'refund-abuse',
  engine: 'jev',
  model: 'jev-1.13.0',
  request_id: null,
  exception: { type: 'EngineTimeout', message: 'The Engine did not answer within 30 s.' },
};

describe('JudgmentLogger', () => {
  afterEach(() => Logger.overrideLogger(new ConsoleLogger()));

  it('writes one line of key=values through the default console logger', () => {
    Logger.overrideLogger(new ConsoleLogger({ colors: false }));
    const output = written(() => new JudgmentLogger(options).warn('Judgment unassessed.', context));
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output).toContain(
      'Judgment unassessed. judgment=refund-abuse engine=jev model=jev-1.13.0 request_id=null ' +
        'exception.type=EngineTimeout exception.message="The Engine did not answer within 30 s."',
    );
  });

  it('gives a JSON console logger the object, printed as one JSON document', () => {
    Logger.overrideLogger(new ConsoleLogger({ json: true }));
    const output = written(() => new JudgmentLogger(options).info('Judgment decided.', { outcome: 'reject' }));
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(output)).toMatchObject({
      context: 'Judgment',
      message: { message: 'Judgment decided.', outcome: 'reject' },
    });
  });

  it("gives an app's own logger the object with the same keys", () => {
    const seen: unknown[] = [];
    const app: LoggerService = { log: (message) => seen.push(message), warn: () => {}, error: () => {} };
    Logger.overrideLogger(app);
    new JudgmentLogger(options).info('Judgment assessed.', { judgment: 'refund-abuse', engine: 'jev' });
    expect(seen).toEqual([{ message: 'Judgment assessed.', judgment: 'refund-abuse', engine: 'jev' }]);
  });

  it("formats nothing for a level the app's logger leaves out", () => {
    Logger.overrideLogger(new ConsoleLogger({ colors: false, logLevels: ['warn', 'error'] }));
    let read = 0;
    const counted = {
      get judgment() {
        read++;
        return 'refund-abuse';
      },
    };
    const output = written(() => new JudgmentLogger(options).info('Judgment assessed.', counted));
    expect(output).toBe('');
    expect(read).toBe(0);
    expect(written(() => new JudgmentLogger(options).warn('Judgment unassessed.', counted))).toContain(
      'Judgment unassessed. judgment=refund-abuse',
    );
    expect(read).toBe(1);
  });

  it('formats dates, arrays and quoted strings on the line', () => {
    expect(logLine('Done.', { at: new Date('2026-12-01T00:00:00Z'), labels: ['a', 'b'], note: 'a=b' })).toBe(
      'Done. at=2026-12-01T00:00:00.000Z labels=["a","b"] note="a=b"',
    );
  });
});
