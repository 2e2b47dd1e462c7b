/** The REST module tree: each module's place and its path prefix. */
import { ModuleTree, type Class, type ModuleNode, type ModulePlacement } from '@lib/core';

import type { RestModuleImport, RestModuleMetadata } from './decorators.js';

/** The module graph as @lib/rest builds it: each node placed at the path prefix of its routes. */
export type RestModuleTree = ModuleTree<RestModuleMetadata, string, RestModuleImport>;
export type RestModuleNode = ModuleNode<RestModuleMetadata, string, RestModuleImport>;

/** A node's prefix: its importer's, joined with the import's `path` (the root's is `/`). */
const PATH_PREFIXES: ModulePlacement<string, RestModuleImport> = {
  root: '/',
  place: (prefix, entry) => joinPath(prefix, typeof entry === 'function' ? '' : (entry.path ?? '')),
};

export function buildModuleTree(rootModule: Class): RestModuleTree {
  return new ModuleTree<RestModuleMetadata, string, RestModuleImport>(rootModule, PATH_PREFIXES);
}

/** `prefix` and `path` joined with single slashes, starting with one: `('/api/', 'v1//users')` is `/api/v1/users`. */
export function joinPath(prefix: string, path: string): string {
  const joined = [prefix, path]
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .join('/');
  return `/${joined}`;
}
