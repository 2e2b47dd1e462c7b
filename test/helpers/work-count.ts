/**
 * Work counted rather than timed, so a test of "linear in the input" cannot fail because the
 * machine is busy, and cannot pass because it is idle.
 *
 * countRegExpWork() runs a function with RegExp.prototype.exec wrapped (test(), match(),
 * replace() and split() all go through it), and records every regex run: the pattern, the
 * string it was handed, and the steps it took. The steps are counted by replaying the run in
 * a small backtracking matcher that follows the ECMAScript pattern semantics (ECMA-262
 * 22.2.2: a greedy quantifier tries one more iteration first and gives characters back one by
 * one; an optional iteration that matched the empty string fails), which is the algorithm a
 * backtracking engine such as V8's Irregexp runs, less its optimizations. One step is one
 * instruction executed or one choice point taken back, so a pattern that backtracks
 * catastrophically shows as steps growing faster than the input, whatever the load.
 *
 * The replay runs first, under a step limit: a run over the limit is recorded and answered
 * "no match" without the real engine ever seeing it (a catastrophic pattern would otherwise
 * hold the test for minutes). Every other run then goes to the real engine, and the replay's
 * answer (match or not, where, how long) must be the engine's: a replay that misreads a
 * pattern is reported, never silently trusted.
 *
 * The matcher knows what the engine's patterns use and a little more: alternation, groups,
 * lookahead, classes and escapes, anchors, \b, greedy and lazy quantifiers, and the flags
 * g, y, i, m, s, d (and u on strings without surrogate pairs). A pattern beyond that
 * (backreferences, lookbehind, the v flag) is reported as one it cannot count.
 *
 * Why not V8's own linear engine (--enable-experimental-regexp-engine, the l flag): it refuses
 * the header-list pattern ({0,63} is past what it unrolls) and accepts the catastrophic ones
 * (it runs them in linear time itself), so it says nothing about the engine that runs them.
 */

export interface RegExpRun {
  /** The pattern as `/source/flags`. */
  pattern: string;
  /** The string the regex was run on. */
  input: string;
  /** Steps the backtracking replay took (up to the limit when it was stopped). */
  steps: number;
  /** Whether the replay was stopped at the step limit (the real engine was then not run). */
  overLimit: boolean;
}

export interface RegExpWork<T> {
  value: T;
  runs: RegExpRun[];
  /** Runs over the step limit, patterns the replay cannot count, and any disagreement with the engine. */
  problems: string[];
}

/** The step limit of one run, given the string it runs on. */
export type StepLimit = (input: string) => number;

const originalExec = RegExp.prototype.exec;

/** Runs `fn` with every regex run counted (see above); exec is restored before this returns. */
export function countRegExpWork<T>(fn: () => T, limit: StepLimit): RegExpWork<T> {
  const runs: RegExpRun[] = [];
  const problems: string[] = [];
  let replaying = false;
  function exec(this: RegExp, argument: unknown): RegExpExecArray | null {
    if (replaying) return originalExec.call(this, argument as string);
    const input = String(argument);
    const pattern = `/${this.source}/${this.flags}`;
    const start = this.global || this.sticky ? Math.max(0, Math.min(this.lastIndex, Number.MAX_SAFE_INTEGER)) : 0;
    let replay: Replay;
    replaying = true;
    try {
      replay = replayExec(this.source, this.flags, input, start, limit(input));
    } catch (error) {
      if (!(error instanceof Uncountable)) throw error;
      problems.push(`cannot count the steps of ${pattern}: ${error.message}`);
      replaying = false;
      return originalExec.call(this, input);
    } finally {
      replaying = false;
    }
    runs.push({ pattern, input, steps: replay.steps, overLimit: replay.overLimit });
    if (replay.overLimit) {
      problems.push(`${pattern} took more than ${limit(input)} steps on a ${input.length}-character string (not run for real)`);
      if (this.global || this.sticky) this.lastIndex = 0;
      return null;
    }
    const real = originalExec.call(this, input);
    const same =
      real === null ? replay.match === undefined : replay.match !== undefined && real.index === replay.match.index && real[0].length === replay.match.length;
    if (!same) {
      const describe = (index: number | undefined, length: number | undefined) => (index === undefined ? 'no match' : `a match of ${length} at ${index}`);
      problems.push(
        `the replay of ${pattern} on ${JSON.stringify(input.slice(0, 60))} found ${describe(replay.match?.index, replay.match?.length)}, the engine ${describe(real?.index, real?.[0].length)}: fix test/helpers/work-count.ts`,
      );
    }
    return real;
  }
  RegExp.prototype.exec = exec as typeof RegExp.prototype.exec;
  try {
    return { value: fn(), runs, problems };
  } finally {
    RegExp.prototype.exec = originalExec;
  }
}

/** A pattern the replay does not know how to run. */
export class Uncountable extends Error {}

interface Replay {
  match: { index: number; length: number } | undefined;
  steps: number;
  overLimit: boolean;
}

/** exec() of `/source/flags` on `input` from `start`, counted: the steps of every start position tried. */
export function replayExec(source: string, flags: string, input: string, start: number, limit: number): Replay {
  const program = compiled(source, flags);
  if (program.unicode && /* a surrogate pair would be one character */ hasSurrogate(input)) throw new Uncountable('the u flag on a string with surrogates');
  const counter = { steps: 0, limit };
  try {
    const last = program.sticky ? Math.min(start, input.length) : input.length;
    for (let at = start; at <= last; at++) {
      const end = execute(program.main, input, at, counter, program);
      if (end !== -1) return { match: { index: at, length: end - at }, steps: counter.steps, overLimit: false };
    }
    return { match: undefined, steps: counter.steps, overLimit: false };
  } catch (error) {
    if (error === OVER_LIMIT) return { match: undefined, steps: counter.steps, overLimit: true };
    throw error;
  }
}

function hasSurrogate(input: string): boolean {
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The matcher: a pattern compiles to a program for a backtracking machine with an explicit
// stack (so a 4 KiB string is never 4,000 nested calls deep).

type Predicate = (c: number) => boolean;

type Instruction =
  | { op: 'char'; test: Predicate }
  | { op: 'split'; first: number; second: number }
  | { op: 'jump'; to: number }
  | { op: 'mark'; register: number }
  | { op: 'progress'; register: number }
  | { op: 'lineStart' | 'lineEnd' | 'inputStart' | 'inputEnd' | 'wordBoundary' | 'notWordBoundary' }
  | { op: 'look'; program: Instruction[]; negative: boolean }
  | { op: 'match' };

interface Program {
  main: Instruction[];
  registers: number;
  sticky: boolean;
  unicode: boolean;
}

const OVER_LIMIT = Symbol('over the step limit');
const programs = new Map<string, Program>();

function compiled(source: string, flags: string): Program {
  const key = `${flags}/${source}`;
  let program = programs.get(key);
  if (program === undefined) {
    program = compile(source, flags);
    programs.set(key, program);
  }
  return program;
}

/** Runs `program` from `at`; returns where the match ends, or -1. */
function execute(program: Instruction[], input: string, at: number, counter: { steps: number; limit: number }, shape: Program): number {
  const registers = new Array<number>(shape.registers).fill(-1);
  // The stack holds triples: kind (0: resume at pc/pos, 1: restore register), a, b.
  const stack: number[] = [];
  let pc = 0;
  let pos = at;
  for (;;) {
    if (++counter.steps > counter.limit) throw OVER_LIMIT;
    const instruction = program[pc]!;
    let ok = true;
    switch (instruction.op) {
      case 'char':
        if (pos < input.length && instruction.test(input.charCodeAt(pos))) {
          pos++;
          pc++;
        } else ok = false;
        break;
      case 'split':
        stack.push(0, instruction.second, pos);
        pc = instruction.first;
        break;
      case 'jump':
        pc = instruction.to;
        break;
      case 'mark':
        stack.push(1, instruction.register, registers[instruction.register]!);
        registers[instruction.register] = pos;
        pc++;
        break;
      case 'progress':
        if (registers[instruction.register] === pos) ok = false;
        else pc++;
        break;
      case 'inputStart':
        if (pos === 0) pc++;
        else ok = false;
        break;
      case 'inputEnd':
        if (pos === input.length) pc++;
        else ok = false;
        break;
      case 'lineStart':
        if (pos === 0 || isLineTerminator(input.charCodeAt(pos - 1))) pc++;
        else ok = false;
        break;
      case 'lineEnd':
        if (pos === input.length || isLineTerminator(input.charCodeAt(pos))) pc++;
        else ok = false;
        break;
      case 'wordBoundary':
      case 'notWordBoundary': {
        const before = pos > 0 && isWordChar(input.charCodeAt(pos - 1));
        const after = pos < input.length && isWordChar(input.charCodeAt(pos));
        if ((before !== after) === (instruction.op === 'wordBoundary')) pc++;
        else ok = false;
        break;
      }
      case 'look': {
        // Lookahead is atomic: its own machine, its steps counted with ours.
        const found = execute(instruction.program, input, pos, counter, shape) !== -1;
        if (found !== instruction.negative) pc++;
        else ok = false;
        break;
      }
      case 'match':
        return pos;
    }
    while (!ok) {
      if (stack.length === 0) return -1;
      if (++counter.steps > counter.limit) throw OVER_LIMIT;
      const b = stack.pop()!;
      const a = stack.pop()!;
      const kind = stack.pop()!;
      if (kind === 1) {
        registers[a] = b;
      } else {
        pc = a;
        pos = b;
        ok = true;
      }
    }
  }
}

const isLineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
const isWordChar = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const WHITE_SPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);
const isSpace = (c: number) => WHITE_SPACE.has(c) || (c >= 0x2000 && c <= 0x200a);

// ---------------------------------------------------------------------------------------------
// Parsing (ECMA-262 22.2.1, with the Annex B leniencies where they are unambiguous).

type Node =
  | { type: 'alternation'; alternatives: Node[][] }
  | { type: 'char'; test: Predicate }
  | { type: 'assertion'; op: 'lineStart' | 'lineEnd' | 'inputStart' | 'inputEnd' | 'wordBoundary' | 'notWordBoundary' }
  | { type: 'look'; body: Node; negative: boolean }
  | { type: 'repeat'; body: Node; min: number; max: number; greedy: boolean };

/** No quantifier is unrolled past this many copies. */
const MAX_UNROLL = 1000;

function compile(source: string, flags: string): Program {
  for (const flag of flags) if (!'dgimsuy'.includes(flag)) throw new Uncountable(`the ${flag} flag`);
  const f = { ignoreCase: flags.includes('i'), multiline: flags.includes('m'), dotAll: flags.includes('s'), unicode: flags.includes('u') };
  let i = 0;
  const peek = () => source[i];
  const eat = (ch: string): boolean => {
    if (source[i] !== ch) return false;
    i++;
    return true;
  };
  const fail = (what: string): never => {
    throw new Uncountable(`${what} at ${i}`);
  };
  const caseless = (test: Predicate): Predicate =>
    f.ignoreCase
      ? (c) => {
          if (test(c)) return true;
          const ch = String.fromCharCode(c);
          const upper = ch.toUpperCase();
          const lower = ch.toLowerCase();
          return (upper.length === 1 && test(upper.charCodeAt(0))) || (lower.length === 1 && test(lower.charCodeAt(0)));
        }
      : test;

  function disjunction(): Node {
    const alternatives: Node[][] = [alternative()];
    while (eat('|')) alternatives.push(alternative());
    return { type: 'alternation', alternatives };
  }

  function alternative(): Node[] {
    const terms: Node[] = [];
    while (i < source.length && peek() !== '|' && peek() !== ')') terms.push(term());
    return terms;
  }

  function term(): Node {
    const ch = source[i++]!;
    if (ch === '^') return { type: 'assertion', op: f.multiline ? 'lineStart' : 'inputStart' };
    if (ch === '$') return { type: 'assertion', op: f.multiline ? 'lineEnd' : 'inputEnd' };
    if (ch === '\\' && (peek() === 'b' || peek() === 'B')) return { type: 'assertion', op: source[i++] === 'b' ? 'wordBoundary' : 'notWordBoundary' };
    if (ch === '(' && peek() === '?' && (source[i + 1] === '=' || source[i + 1] === '!')) {
      const negative = source[i + 1] === '!';
      i += 2;
      const body = disjunction();
      if (!eat(')')) fail('an unclosed lookahead');
      return quantified({ type: 'look', body, negative });
    }
    let atom: Node;
    if (ch === '(') {
      if (eat('?')) {
        if (eat(':')) {
          // a non-capturing group
        } else if (peek() === '<' && source[i + 1] !== '=' && source[i + 1] !== '!') {
          const close = source.indexOf('>', i);
          if (close === -1) fail('an unclosed group name');
          i = close + 1;
        } else fail('a lookbehind or a group modifier');
      }
      atom = disjunction();
      if (!eat(')')) fail('an unclosed group');
    } else if (ch === '[') {
      atom = { type: 'char', test: characterClass() };
    } else if (ch === '.') {
      atom = { type: 'char', test: f.dotAll ? () => true : (c) => !isLineTerminator(c) };
    } else if (ch === '\\') {
      atom = { type: 'char', test: caseless(atomEscape(false)) };
    } else if (ch === '*' || ch === '+' || ch === '?' || ch === ')' || (ch === '{' && quantifierAt(i - 1) !== undefined)) {
      return fail(`a stray ${ch}`);
    } else {
      const code = ch.charCodeAt(0);
      atom = { type: 'char', test: caseless((c) => c === code) };
    }
    return quantified(atom);
  }

  /** The quantifier written at `at`, if any: [min, max, length of its text]. */
  function quantifierAt(at: number): [number, number, number] | undefined {
    const ch = source[at];
    if (ch === '*') return [0, Infinity, 1];
    if (ch === '+') return [1, Infinity, 1];
    if (ch === '?') return [0, 1, 1];
    if (ch !== '{') return undefined;
    let j = at + 1;
    let min = '';
    while (isDigit(source.charCodeAt(j))) min += source[j++];
    if (min === '') return undefined;
    let max = min;
    if (source[j] === ',') {
      j++;
      max = '';
      while (isDigit(source.charCodeAt(j))) max += source[j++];
    }
    if (source[j] !== '}') return undefined;
    return [Number(min), max === '' ? Infinity : Number(max), j + 1 - at];
  }

  function quantified(atom: Node): Node {
    const quantifier = quantifierAt(i);
    if (quantifier === undefined) return atom;
    const [min, max, length] = quantifier;
    if (min > max) fail('a quantifier out of order');
    i += length;
    const greedy = !eat('?');
    if (quantifierAt(i) !== undefined) fail('a quantifier of a quantifier');
    return { type: 'repeat', body: atom, min, max, greedy };
  }

  /** After a backslash: one character's predicate. */
  function atomEscape(inClass: boolean): Predicate {
    const ch = source[i++];
    if (ch === undefined) return fail('a trailing backslash');
    switch (ch) {
      case 'd':
        return isDigit;
      case 'D':
        return (c) => !isDigit(c);
      case 'w':
        return isWordChar;
      case 'W':
        return (c) => !isWordChar(c);
      case 's':
        return isSpace;
      case 'S':
        return (c) => !isSpace(c);
      case 't':
        return (c) => c === 0x09;
      case 'n':
        return (c) => c === 0x0a;
      case 'v':
        return (c) => c === 0x0b;
      case 'f':
        return (c) => c === 0x0c;
      case 'r':
        return (c) => c === 0x0d;
      case 'b':
        if (inClass) return (c) => c === 0x08;
        break;
      case '0':
        if (!isDigit(source.charCodeAt(i))) return (c) => c === 0;
        break;
      case 'c': {
        const letter = source.charCodeAt(i);
        if ((letter >= 0x41 && letter <= 0x5a) || (letter >= 0x61 && letter <= 0x7a)) {
          i++;
          return (c) => c === letter % 32;
        }
        break;
      }
      case 'x':
      case 'u': {
        if (ch === 'u' && source[i] === '{') {
          if (!f.unicode) break;
          const close = source.indexOf('}', i);
          const value = parseInt(source.slice(i + 1, close), 16);
          if (close === -1 || !(value <= 0xffff)) return fail('a code point escape beyond the BMP');
          i = close + 1;
          return (c) => c === value;
        }
        const digits = ch === 'x' ? 2 : 4;
        const hex = source.slice(i, i + digits);
        if (hex.length === digits && [...hex].every((h) => '0123456789abcdefABCDEF'.includes(h))) {
          i += digits;
          const value = parseInt(hex, 16);
          if (value >= 0xd800 && value <= 0xdfff) return fail('a surrogate escape');
          return (c) => c === value;
        }
        if (f.unicode) return fail(`a bad \\${ch} escape`);
        return (c) => c === ch.charCodeAt(0);
      }
      case 'k':
      case 'p':
      case 'P':
        return fail(`\\${ch}`);
    }
    if (isDigit(ch.charCodeAt(0))) return fail('a backreference or an octal escape');
    const code = ch.charCodeAt(0);
    return (c) => c === code;
  }

  /** After `[`: the class's predicate. */
  function characterClass(): Predicate {
    const negated = eat('^');
    const parts: Predicate[] = [];
    // One class atom: a single code unit (when it can end a range), or a predicate (\d and such).
    const classAtom = (): { code?: number; test: Predicate } => {
      const ch = source[i++];
      if (ch === undefined) return fail('an unclosed class');
      if (ch !== '\\') {
        const code = ch.charCodeAt(0);
        return { code, test: (c) => c === code };
      }
      const letter = source[i];
      const test = atomEscape(true);
      if (letter !== undefined && 'dDwWsS'.includes(letter)) return { test };
      // A single-character escape: recover its code by asking the predicate (at most 0xffff tries, once per class).
      for (let c = 0; c <= 0xffff; c++) if (test(c)) return { code: c, test };
      return fail('an escape that matches nothing');
    };
    while (!eat(']')) {
      const from = classAtom();
      if (peek() === '-' && source[i + 1] !== ']' && source[i + 1] !== undefined) {
        i++;
        const to = classAtom();
        if (from.code === undefined || to.code === undefined) {
          if (f.unicode) fail('a range with a class escape');
          parts.push(from.test, (c) => c === 0x2d, to.test);
        } else {
          if (from.code > to.code) fail('a range out of order');
          const low = from.code;
          const high = to.code;
          parts.push((c) => c >= low && c <= high);
        }
      } else parts.push(from.test);
    }
    // Case folding applies to the members, before the negation ([^a] with i refuses A too).
    const member = caseless((c) => {
      for (const part of parts) if (part(c)) return true;
      return false;
    });
    return (c) => member(c) !== negated;
  }

  const tree = disjunction();
  if (i < source.length) fail('an unmatched )');

  let registers = 0;
  function canBeEmpty(node: Node): boolean {
    switch (node.type) {
      case 'char':
        return false;
      case 'assertion':
      case 'look':
        return true;
      case 'alternation':
        return node.alternatives.some((terms) => terms.every(canBeEmpty));
      case 'repeat':
        return node.min === 0 || canBeEmpty(node.body);
    }
  }
  function emit(node: Node, out: Instruction[]): void {
    switch (node.type) {
      case 'char':
        out.push({ op: 'char', test: node.test });
        return;
      case 'assertion':
        out.push({ op: node.op });
        return;
      case 'look': {
        const program: Instruction[] = [];
        emit(node.body, program);
        program.push({ op: 'match' });
        out.push({ op: 'look', program, negative: node.negative });
        return;
      }
      case 'alternation': {
        // split L1, next; L1: first; jump end; next: split L2, next2; ... last alternative; end:
        const jumps: { op: 'jump'; to: number }[] = [];
        node.alternatives.forEach((terms, index) => {
          const last = index === node.alternatives.length - 1;
          const split = { op: 'split' as const, first: out.length + 1, second: -1 };
          if (!last) out.push(split);
          for (const child of terms) emit(child, out);
          if (!last) {
            const jump = { op: 'jump' as const, to: -1 };
            jumps.push(jump);
            out.push(jump);
            split.second = out.length;
          }
        });
        for (const jump of jumps) jump.to = out.length;
        return;
      }
      case 'repeat': {
        const { body, min, max, greedy } = node;
        if (min > MAX_UNROLL || (max !== Infinity && max - min > MAX_UNROLL)) throw new Uncountable(`a quantifier {${min},${max}} too large to unroll`);
        for (let k = 0; k < min; k++) emit(body, out);
        // An optional iteration: try it (greedy) or skip it (lazy) first; an empty one fails
        // (checked only when the body can match the empty string at all).
        const register = canBeEmpty(body) ? registers++ : -1;
        const optional = (exit: { op: 'split'; first: number; second: number }[]) => {
          const split = { op: 'split' as const, first: -1, second: -1 };
          out.push(split);
          const iteration = out.length;
          if (register !== -1) out.push({ op: 'mark', register });
          emit(body, out);
          if (register !== -1) out.push({ op: 'progress', register });
          exit.push(split);
          return { split, iteration };
        };
        if (max === Infinity) {
          const exits: { op: 'split'; first: number; second: number }[] = [];
          const loop = out.length;
          const { split, iteration } = optional(exits);
          out.push({ op: 'jump', to: loop });
          const after = out.length;
          split.first = greedy ? iteration : after;
          split.second = greedy ? after : iteration;
        } else {
          const exits: { op: 'split'; first: number; second: number }[] = [];
          const starts: number[] = [];
          for (let k = min; k < max; k++) starts.push(optional(exits).iteration);
          const after = out.length;
          exits.forEach((split, k) => {
            split.first = greedy ? starts[k]! : after;
            split.second = greedy ? after : starts[k]!;
          });
        }
        return;
      }
    }
  }
  const main: Instruction[] = [];
  emit(tree, main);
  main.push({ op: 'match' });
  return { main, registers, sticky: flags.includes('y'), unicode: f.unicode };
}
