/**
 * docs/errors.md has one section per code, and only those: every code an error carries
 * (OPTION_ERROR_CODES, ROUTE_ERROR_CODES, USAGE_ERROR_CODES) and every reason explain() and
 * cors-check give (REASON_CODES). A code added without its section fails here, as does a section
 * left behind. Each section's heading is the code itself, so its anchor is predictable, and
 * explain()'s `docs` and cors-check's link land on it; each section says what triggers the code,
 * shows it, and gives the fix, and an example that builds an engine really throws its code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import Router from 'find-my-way';
import t from 'tap';

import { createCors, OPTION_ERROR_CODES, ROUTE_ERROR_CODES, USAGE_ERROR_CODES } from '@lib/cors/standalone';

import { REPOSITORY } from '../helpers/packing.js';

/** The reasons of the browser checks (src/cors/diagnostics/browser-checks.ts, internal). */
const { REASON_CODES, reasonDocs } = (await import(new URL('../../../src/cors/dist/diagnostics/browser-checks.js', import.meta.url).href)) as {
  REASON_CODES: readonly string[];
  reasonDocs(code: string): string;
};

const ERROR_CODES: readonly string[] = [...OPTION_ERROR_CODES, ...ROUTE_ERROR_CODES, ...USAGE_ERROR_CODES];

/** GitHub's anchor for a heading (as scripts/package-readme.js and test/packaging/readmes.test.ts make them). */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** A page's `### ` sections: heading and text up to the next heading. */
function sectionsOf(page: string): Map<string, string> {
  const sections = new Map<string, string>();
  for (const match of page.matchAll(/^### (.+)\n([\s\S]*?)(?=^#{1,3} |(?![\s\S]))/gm)) sections.set(match[1]!, match[2]!);
  return sections;
}

const page = readFileSync(join(REPOSITORY, 'docs/errors.md'), 'utf8');
const sections = sectionsOf(page);

t.test('the sections are the codes, exactly: every error code and every reason, nothing else', async (t) => {
  t.same([...sections.keys()].sort(), [...ERROR_CODES, ...REASON_CODES].sort());
});

t.test("each heading's anchor is the code, lower-cased", async (t) => {
  for (const code of sections.keys()) t.equal(slug(code), code.toLowerCase(), code);
});

t.test('each section says what triggers the code, shows it, and gives the fix', async (t) => {
  for (const [code, text] of sections) {
    const [trigger] = text.split('\n```');
    t.ok(trigger!.trim().length > 20, `${code}: what triggers it, first`);
    t.match(text, /\n```\w+\n[\s\S]+?\n```\n/, `${code}: an example`);
    t.match(text, /\n(Fix: |Nothing to fix)/, `${code}: the fix`);
  }
});

t.test('an example that builds an engine throws the code of its section', async (t) => {
  let run = 0;
  for (const code of ERROR_CODES) {
    const example = /\n```js\n(createCors\(.*\))\n```\n/.exec(sections.get(code) ?? '')?.[1];
    if (example === undefined) continue;
    const build = new Function('createCors', 'FindMyWay', `return ${example};`) as (...args: unknown[]) => unknown;
    t.throws(() => build(createCors, Router), { code }, `${code}: ${example}`);
    run++;
  }
  t.ok(run >= OPTION_ERROR_CODES.length, `${run} examples run, every option code's among them`);
});

t.test("explain()'s and cors-check's link of each reason lands on its section, in the repository and in the package", async (t) => {
  const shipped = readFileSync(join(REPOSITORY, 'src/cors', 'docs/errors.md'), 'utf8');
  const shippedAnchors = new Set([...shipped.matchAll(/^#+ (.+)$/gm)].map(([, heading]) => slug(heading!)));
  for (const code of REASON_CODES) {
    const [path, fragment] = reasonDocs(code).split('#');
    t.equal(path, 'docs/errors.md', code);
    t.equal(fragment, code, `${code}: the anchor is the code`);
    t.ok(shippedAnchors.has(fragment!), `${code}: a heading of the shipped copy`);
  }
});
