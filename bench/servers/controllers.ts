/** The benchmark routes as @lib/rest controllers, each answering the same JSON body. */
import { controller, RequestContext, route } from '@lib/rest';

import { BODY } from './policy.js';

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
