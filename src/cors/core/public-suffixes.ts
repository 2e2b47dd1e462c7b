/**
 * The Public Suffix List (private section included: github.io, vercel.app), as browsers use it
 * for cookies, for the start-up warnings about a sub-domain pattern or a credentialed RegExp that
 * grants every site under a public suffix. A hand-made list would miss the names added every month.
 *
 * Loaded at the first such check, never at import: most policies have no pattern, and the list is
 * the largest thing the package holds. Node, Deno and Bun load the copy generated at build time
 * (scripts/public-suffix-list.js); a bundle for an edge runtime gets none (the `node` condition
 * of package.json `imports`), and the check is skipped there.
 */

/** Whether a host name is a public suffix: what tldts's `getPublicSuffix(host) === host` answers. */
export interface PublicSuffixList {
  isPublicSuffix(host: string): boolean;
}

let loaded: { readonly list: PublicSuffixList | undefined } | undefined;

/** The list, parsed at the first call; `undefined` where the runtime has none (an edge bundle). */
export function publicSuffixList(): PublicSuffixList | undefined {
  if (loaded === undefined) {
    // A require() and not an import: the package is CommonJS, and the load must happen here,
    // at the first check, not when the module is imported.
    let rules: string | undefined;
    try {
      ({ rules } = require('#public-suffix-list') as { rules: string | undefined });
    } catch {
      // A resolver that reads no `imports` map (jest before 28): no list, as at the edge.
      rules = undefined;
    }
    loaded = { list: rules === undefined ? undefined : parse(rules) };
  }
  return loaded.list;
}

/** One line per parent suffix, "parent:child,child"; a child `*` stands for any label, `!name` is an exception. */
function parse(text: string): PublicSuffixList {
  const rules = new Set<string>();
  const exceptions = new Set<string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    const parent = line.slice(0, colon);
    for (const child of line.slice(colon + 1).split(',')) {
      const exception = child.startsWith('!');
      const name = (exception ? child.slice(1) : child) + (parent === '' ? '' : `.${parent}`);
      (exception ? exceptions : rules).add(name);
    }
  }
  return {
    isPublicSuffix(host) {
      if (!HOST_NAME.test(host) || IPV4.test(host)) return false;
      // The PSL algorithm (publicsuffix.org/list): an exception rule that matches prevails, and
      // its public suffix is the rule less its first label, so shorter than the host.
      for (let dot = -1; ; ) {
        if (exceptions.has(host.slice(dot + 1))) return false;
        dot = host.indexOf('.', dot + 1);
        if (dot === -1) break;
      }
      if (rules.has(host)) return true;
      const dot = host.indexOf('.');
      // The implicit rule "*": a top-level domain the list does not name is a public suffix.
      return dot === -1 || rules.has(`*${host.slice(dot)}`);
    },
  };
}

// What tldts accepts as a host name (letters, digits, "-" and "_", no label starting or ending
// with "-", none longer than 63), lower case as origins serialize it. An IPv4 address has no suffix.
const HOST_NAME = /^(?=.{1,255}$)(?!-)[a-z0-9_-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9_-]{1,63}(?<!-))*$/;
const IPV4 = /^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/;
