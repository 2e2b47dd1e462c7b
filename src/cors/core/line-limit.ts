/** Bounds log lines per second, so a flood of refusals or faults cannot fill a disk. */

/** The bound on refusal and fault lines, each kind counted apart. */
export const LINES_PER_SECOND = 5;

/** At most `perSecond` lines a second; the first line after dropped ones says how many were dropped. */
export class LineLimit {
  #windowStart = 0;
  #written = 0;
  #dropped = 0;

  constructor(
    private readonly write: (line: string) => void,
    private readonly perSecond: number = LINES_PER_SECOND,
  ) {}

  line(text: string, dropped: string): void {
    const now = Date.now();
    if (now - this.#windowStart >= 1000) {
      this.#windowStart = now;
      this.#written = 0;
    }
    if (this.#written >= this.perSecond) {
      this.#dropped++;
      return;
    }
    this.#written++;
    const count = this.#dropped;
    this.#dropped = 0;
    this.write(count === 0 ? text : `${text} (${count} more ${dropped} were not logged)`);
  }
}

const faultLines = new WeakMap<object, (message: string) => void>();

/**
 * Reports origin-function faults to `logger.error`, every one, at most LINES_PER_SECOND a second
 * per logger, whichever policy of whichever entry point they come from.
 */
export function faultReporter(logger: { error(message: string): void }): (message: string) => void {
  let report = faultLines.get(logger);
  if (report === undefined) {
    const limit = new LineLimit((line) => logger.error(line));
    report = (message) => limit.line(message, 'faults');
    faultLines.set(logger, report);
  }
  return report;
}
