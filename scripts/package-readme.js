// Writes src/cors/README.md, the README the @lib/cors tarball ships, from the root README and the
// guides in docs/: one source for each text, and a shipped README of one page (issue 46: at most
// 300 lines): install, one example per entry point, every option with its default, the errors,
// and the guides by name. Links to files the tarball does not hold become plain text, so every
// relative link in the tarball resolves. Also writes
// src/cors/docs/errors.md, a copy of docs/errors.md at the same path from the package's folder
// as from the repository's, since explain() and cors-check link its sections by that path. The
// README gives that page's introduction and an index of its codes, each linking to its section
// there, rather than a second copy of it (issue 29: 17 KB of every install).
// `--check` exits 1 when a committed file differs from what this would write
// (test/packaging/readmes.test.ts runs it).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

/** The guides the README draws on or names, in the order it names them. */
const GUIDES = ['entry-points.md', 'options.md', 'errors.md', 'diagnostics.md', 'operations.md', 'migration.md', 'cors-module.md'];
/** The guide that ships as a file of its own (docs/errors.md); the README holds its introduction and an index. */
const ERRORS = 'errors.md';

const HEAD = `# @lib/cors

CORS and \`OPTIONS\` handling for Node.js 22 and later, correct to the letter of the Fetch
standard: options validated at start-up and compiled into per-path header tables, each request
decided once from its route's table. One engine, an entry point per framework:

| import | for |
|---|---|
| \`@lib/cors/express\` | Express 4 and 5: \`app.use(createCors(options))\` before the routes |
| \`@lib/cors/koa\` | Koa with \`@koa/router\`: \`app.use(createCors(options))\` before the routers |
| \`@lib/cors/hono\` | hono: \`app.use(createCors(app, options))\` |
| \`@lib/cors/fastify\` | fastify 4.28 and 5: \`await app.register(fastifyCors, options)\` |
| \`@lib/cors/standalone\` | \`node:http\` and Connect: \`createCors(options).handle\` |
| \`@lib/cors/fetch\` | Deno, Bun, Cloudflare Workers: \`createCors(options).handle(request, next)\` |
| \`@lib/cors/next\` | Next.js 14.2 to 16: \`cors.route({ GET, POST }, options)\` in a route file, \`cors.apiRoute()\`, \`cors.proxy()\` |
| \`@lib/cors/origin-store\` | allowed origins in Redis or PostgreSQL, shared by every instance: \`redisOrigins()\`, \`postgresOrigins()\` |
| \`@lib/cors\` | all of the above's options and errors, and \`CorsModule\` for the \`@lib/rest\` host (install \`@lib/core\` and \`@lib/rest\` beside it) |

Every entry point loads with \`import\` and with \`require()\`, each with its own types, under
every TypeScript \`moduleResolution\`; CommonJS apps and jest 27 on with its default configuration
need nothing more, and an app that does both gets one copy (one engine, error classes that
\`instanceof\` recognises either way). In CommonJS, \`require('@lib/cors/fastify')\` is the plugin
itself, as with other fastify plugins.

The command \`cors-check\`, installed with the package, judges any server's CORS answers as a
browser would (docs/diagnostics.md in the repository).

This README is generated from the repository's docs/ (scripts/package-readme.js).
`;

/** GitHub's anchor for a heading. */
function slug(heading) {
  return heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

/**
 * A guide's links to other files as they resolve in the tarball: a guide the README includes
 * becomes `readme` followed by its anchor (or the link's own fragment), a file the tarball does not
 * hold becomes plain text. Links within the page and absolute URLs stay.
 */
function shippedLinks(text, readme) {
  const anchors = new Map(GUIDES.map((guide) => [guide, slug(read(`docs/${guide}`).split('\n')[0].replace(/^# /, ''))]));
  return text.replace(/\[([^\]]+)\]\(([^)#\s]+)(#[^)]*)?\)/g, (link, text, target, fragment) => {
    if (/^[a-z]+:/.test(target)) return link;
    // In the README, a link into the errors page goes to the page itself, which the tarball holds.
    if (target === ERRORS && readme === '') return `[${text}](docs/${ERRORS}${fragment ?? ''})`;
    const anchor = anchors.get(target);
    return anchor === undefined ? text : `[${text}](${readme}${fragment ?? `#${anchor}`})`;
  });
}

/**
 * The README's part for docs/errors.md: the page's introduction (the classes, how problems are
 * listed) and each of its sections' codes, every link pointing into the page (shippedLinks() makes
 * them docs/errors.md links).
 */
function errorsIndex() {
  const page = read(`docs/${ERRORS}`).trimEnd();
  const firstSection = page.search(/^## /m);
  const introduction = page
    .slice(0, firstSection)
    .trimEnd()
    .replace(/\]\(#([^)]+)\)/g, `](${ERRORS}#$1)`);
  const sections = [...page.slice(firstSection).matchAll(/^## (.+)\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)].map(([, title, body]) => {
    const codes = [...body.matchAll(/^### (.+)$/gm)].map(([, code]) => `[${code}](${ERRORS}#${slug(code)})`);
    return `- ${title}: ${codes.join(', ')}`;
  });
  return [introduction, `Each code's cause, an example and its fix are in [docs/errors.md](${ERRORS}), which ships in the package:`, sections.join('\n')].join(
    '\n\n',
  );
}

/** The root README's sections whose first code block is an entry point's example, with the title they get here. */
const EXAMPLES = [
  ['Install', 'Install'],
  ['Koa and hono', 'Koa and hono'],
  ['fastify (`@lib/cors/fastify`)', 'fastify'],
  ['`node:http` (`@lib/cors/standalone`)', '`node:http` and Connect'],
  ['Deno, Bun and Cloudflare Workers (`@lib/cors/fetch`)', 'Deno, Bun and Cloudflare Workers'],
  ['Next.js (`@lib/cors/next`)', 'Next.js'],
  ['Origins kept in Redis or PostgreSQL (`@lib/cors/origin-store`)', 'Origins kept in Redis or PostgreSQL'],
  ['`CorsModule` in a `@lib/rest` application', '`CorsModule` for the `@lib/rest` host'],
];

/** A `## title` section of `text`, its heading left out. */
function sectionOf(text, title) {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`no section "## ${title}"`);
  const body = text.slice(start + title.length + 5);
  const end = body.search(/^## /m);
  return (end === -1 ? body : body.slice(0, end)).trim();
}

/** The code blocks of a section, joined. */
function codeOf(section) {
  return [...section.matchAll(/^```(?:ts|sh)\n[\s\S]*?^```$/gm)].map(([block]) => block).join('\n\n');
}

export function packageReadme() {
  const readme = read('README.md');
  // The first example of the root README (Express), before its first section.
  const express = /^```ts\n[\s\S]*?^```$/m.exec(readme)[0];
  const examples = [
    `## Express\n\n${express}`,
    ...EXAMPLES.map(([from, title]) => {
      const section = sectionOf(readme, from);
      return `## ${title}\n\n${title === 'Install' ? 'Once published: `npm install @lib/cors` (and `@lib/core @lib/rest` for `CorsModule`). Until then, from the repository:\n\n' : ''}${codeOf(section)}`;
    }),
  ];
  const options = sectionOf(read('docs/options.md'), 'Options (`CorsOptions`)')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .join('\n');
  const guides = [
    '## Guides',
    "In the repository's docs/: entry-points.md (each entry point in full, and what each framework's routes decide), options.md " +
      '(every option and what each request gets), diagnostics.md (why a request was refused: `explain()`, the refusal log, `cors-check`), ' +
      'operations.md (`reconfigure()`, `options()`, the `diagnostics_channel` channels), migration.md (Moving from `cors`, `@fastify/cors`, ' +
      '`@koa/cors` or hono), cors-module.md (`CorsModule` and `CorsService`), and CONTRACT.md (every request kind and rule).',
  ].join('\n\n');
  const parts = [
    HEAD.trimEnd(),
    ...examples,
    `## Options\n\nGiven to \`createCors()\`, the plugin or \`CorsModule.withOpts()\`, and per route (\`cors.route(options)\`, \`config.cors\`), merged field by field:\n\n${options}`,
    // The errors page's introduction, its title left out, under the README's own heading.
    shippedLinks(
      `## Errors\n\n${errorsIndex()
        .replace(/^# .*\n+/, '')
        .replace(/^(#+) /gm, '#$1 ')}`,
      '',
    ),
    guides,
  ];
  return `${parts.join('\n\n')}\n`;
}

/** docs/errors.md as the tarball ships it, beside the README (src/cors/docs/errors.md). */
export function packageErrorsPage() {
  return `${shippedLinks(read('docs/errors.md').trimEnd(), '../README.md')}\n`;
}

const outputs = [
  { target: new URL('src/cors/README.md', root), make: packageReadme },
  { target: new URL('src/cors/docs/errors.md', root), make: packageErrorsPage },
];
for (const { target, make } of outputs) {
  if (process.argv.includes('--check')) {
    let committed;
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      committed = undefined;
    }
    if (committed !== make()) {
      console.error(`${target.pathname.slice(root.pathname.length)} is not what docs/ make: run node scripts/package-readme.js`);
      process.exitCode = 1;
    }
  } else {
    mkdirSync(new URL('.', target), { recursive: true });
    writeFileSync(target, make());
  }
}
