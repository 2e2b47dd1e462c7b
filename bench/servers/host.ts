/** @lib/rest alone: the same routes as the other servers, each answering the same JSON body. */
import { controller, RequestContext, RestApplication, restRootModule, route } from '@lib/rest';

import { announce, BODY } from './policy.js';

@controller()
class UsersController {
  @route('GET', 'users')
  list(ctx: RequestContext) {
    ctx.send(BODY);
  }
  @route('POST', 'users')
  create(ctx: RequestContext) {
    ctx.send(BODY);
  }
  @route('GET', 'users/:id')
  one(ctx: RequestContext) {
    ctx.rawRes.setHeader('Content-Type', 'application/json; charset=utf-8');
    ctx.send(BODY);
  }
  @route('PUT', 'users/:id')
  update(ctx: RequestContext) {
    ctx.send(BODY);
  }
}

@controller()
class PostsController {
  @route('GET', 'posts')
  list(ctx: RequestContext) {
    ctx.send(BODY);
  }
  @route('GET', 'posts/:id/comments')
  comments(ctx: RequestContext) {
    ctx.send(BODY);
  }
}

@restRootModule({ controllers: [UsersController, PostsController] })
class BenchModule {}

const app = await RestApplication.create(BenchModule);
const { port } = await app.listen(0, '127.0.0.1');
announce(port);
