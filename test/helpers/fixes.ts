/**
 * The fix of an option refusal, applied as written: what the corpus of real `cors` configurations
 * (cors-corpus.test.ts) and the generated mistakes (fixes-applied.test.ts) both do with a refusal.
 */
import type { CorsOptionProblem } from '@lib/cors/standalone';

/** Stands in the intended origins for "any site" (where a configuration meant every origin). */
export const ANY_SITE = 'https://any-site.example';

/**
 * The fix a refusal gives, applied as written: a code literal put where it says, an option
 * renamed, or (for '*' with credentials) the user's own origins listed, or allowCredentials left
 * out where any site was meant. `undefined`: the fix cannot be applied as written.
 */
export function applyFix(options: Record<string, unknown>, error: CorsOptionProblem, intended: readonly string[]): Record<string, unknown> | undefined {
  const { fix } = error;
  const next: Record<string, unknown> = { ...options };
  const top = error.field.replace(/[[.].*$/, '');
  if (error.code === 'CORS_WILDCARD_WITH_CREDENTIALS' && top === 'origin') {
    if (intended.includes(ANY_SITE)) delete next.allowCredentials;
    else next.origin = [...intended];
    return next;
  }
  const renamed = /^use (\w+): (.+)$/.exec(fix);
  if (renamed !== null) {
    delete next[top];
    next[renamed[1]!] = literal(renamed[2]!);
    return next;
  }
  const guess = /^did you mean (\w+)\?/.exec(fix);
  if (guess !== null) {
    next[guess[1]!] = next[top];
    delete next[top];
    return next;
  }
  if (/^remove it\b/.test(fix) && error.field === top) {
    delete next[top];
    return next;
  }
  const written = /(\[[^\]]*\]|'[^']*'|(?<=as an? (?:number|boolean): )(?:[0-9]+|true|false)\b)/.exec(fix);
  if (written === null) return undefined;
  const index = /^\w+\[(\d+)\]$/.exec(error.field);
  const list = next[top];
  if (index !== null && Array.isArray(list)) {
    const replaced = [...list];
    replaced.splice(Number(index[1]), 1, ...([] as unknown[]).concat(literal(written[1]!)));
    next[top] = replaced;
  } else {
    next[top] = literal(written[1]!);
  }
  return next;
}

/** A code literal as the messages write them: 'single-quoted' strings, arrays of them, true and false. */
export function literal(code: string): unknown {
  return JSON.parse(code.replaceAll("'", '"'));
}
