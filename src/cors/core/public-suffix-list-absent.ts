/**
 * What `#public-suffix-list` (package.json `imports`) resolves to outside Node, Deno and Bun: in a
 * bundle for an edge runtime. No list, so that a bundle whose policy has no sub-domain pattern
 * carries none of it; the start-up check is then skipped, and docs/entry-points.md says how an
 * edge application gets it (cors-check --options in CI).
 */
export const rules: string | undefined = undefined;
