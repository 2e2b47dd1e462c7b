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

/** The scale case's extra routes, on one controller built at run time (decorators applied by hand). */
export function scaleControllers(): Class[] {
  if (EXTRA_PATHS.length === 0) return [];
  class ScaleController {
    get(ctx: RequestContext) {
      sendBody(ctx);
    }
  }
  const descriptor = Object.getOwnPropertyDescriptor(ScaleController.prototype, 'get')!;
  for (const path of EXTRA_PATHS) route('GET', path)(ScaleController.prototype, 'get', descriptor);
  controller()(ScaleController);
  return [ScaleController];
}
