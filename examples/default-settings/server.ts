/**
 * The spec's first row: CorsModule in `imports`, no options. `npm start`, or
 * `npm run example -- default-settings` (PORT=3000 by default).
 */
import { CorsModule, CorsService } from '@lib/cors';
import { controller, RequestContext, restRootModule, route } from '@lib/rest';

import { serveExample } from '../shared/serve.js';

@controller()
class UsersController {
  @route('GET', 'users')
  list() {
    return [{ id: 1, name: 'Ada' }];
  }
}

@controller()
class PostsController {
  @route('GET', 'posts')
  list() {
    return [{ id: 1, title: 'Hello' }];
  }

  @route('POST', 'posts')
  create(ctx: RequestContext) {
    ctx.sendJson({ created: true }, 201);
  }
}

@controller()
class CredentialsController {
  constructor(
    private readonly cors: CorsService,
    private readonly ctx: RequestContext,
  ) {}

  /** Under the default '*' a cookie cannot be credentialed cross-origin: the server says so once. */
  @route('GET', 'credentials')
  credentials() {
    this.cors.setCookie('one', 'value for one');
    this.ctx.send('cookie set');
  }
}

@restRootModule({ imports: [CorsModule], controllers: [UsersController, PostsController, CredentialsController] })
class AppModule {}

await serveExample('default-settings', AppModule, (url) => [
  'The five request kinds of the specification:',
  `  plain OPTIONS:          curl -i -X OPTIONS ${url}/users`,
  `  OPTIONS CORS request:   curl -i -X OPTIONS ${url}/users -H 'Origin: https://example.com'`,
  `  simple CORS request:    curl -i ${url}/users -H 'Origin: https://example.com'`,
  `  preflight:              curl -i -X OPTIONS ${url}/posts -H 'Origin: https://example.com' -H 'Access-Control-Request-Method: POST' -H 'Access-Control-Request-Headers: content-type, x-request-id'`,
  `  with credentials:       curl -i ${url}/credentials -H 'Origin: https://example.com'`,
]);
