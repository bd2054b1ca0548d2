// The part of cli-progress (which ships no types) the eval command uses.
declare module 'cli-progress' {
  export interface Options {
    format?: string;
    clearOnComplete?: boolean;
    hideCursor?: boolean;
  }
  export class SingleBar {
    constructor(options: Options, preset?: object);
    start(total: number, start: number): void;
    update(value: number): void;
    stop(): void;
  }
  export const Presets: { shades_classic: object };
}
