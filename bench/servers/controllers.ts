/** The benchmark routes as @lib/rest controllers, each answering the same JSON body. */
import type { Class } from '@lib/core';
import { controller, RequestContext, route } from '@lib/rest';

import { BODY, EXTRA_PATHS } from './policy.js';

function sendBody(ctx: RequestContext): void {
  ctx.rawRes.setHeader('Content-Type', 'application/json; charset=utf-8');
  ctx.send(BODY);
}

@controller()
export class UsersController {
  @route('GET', 'users')
  list(ctx: RequestContext) {
    sendBody(ctx);
  }
  @route('POST', 'users')
  create(ctx: RequestContext) {
    sendBody(ctx);
  }
  @route('GET', 'users/:id')
  one(ctx: RequestContext) {
    sendBody(ctx);
  }
  @route('PUT', 'users/:id')
  update(ctx: RequestContext) {
    sendBody(ctx);
  }
}

@controller()
export class PostsController {
  @route('GET', 'posts')
  list(ctx: RequestContext) {
    sendBody(ctx);
  }
  @route('GET', 'posts/:id/comments')
  comments(ctx: RequestContext) {
    sendBody(ctx);
  }
}

/**
 * A controller built at run time (decorators applied by hand), named `name`: one route for each
 * [method, path], each answering the same JSON body.
 */
export function controllerFor(name: string, routes: readonly (readonly [method: string, path: string])[]): Class {
  const built = {
    [name]: class {
      handle(ctx: RequestContext) {
        sendBody(ctx);
      }
    },
  }[name]!;
  const descriptor = Object.getOwnPropertyDescriptor(built.prototype, 'handle')!;
  for (const [method, path] of routes) route(method, path)(built.prototype, 'handle', descriptor);
  controller()(built);
  return built;
}

/** The scale case's extra routes, on one controller built at run time. */
export function scaleControllers(): Class[] {
  if (EXTRA_PATHS.length === 0) return [];
  const routes = EXTRA_PATHS.map((path) => ['GET', path] as const);
  return [controllerFor('ScaleController', routes)];
}
