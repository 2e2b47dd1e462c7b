/** How covered paths are matched: the settings the route tree, fastify's router and the comparison of paths that share a URL read alike. */

/** How paths are matched; the same names and defaults as find-my-way's own options. */
export interface PathMatching {
  ignoreTrailingSlash?: boolean;
  ignoreDuplicateSlashes?: boolean;
  caseSensitive?: boolean;
  useSemicolonDelimiter?: boolean;
  maxParamLength?: number;
}
