/**
 * The spec's first row: CorsModule in `imports`, no options. `npm start`, or
 * `npm run example -- default-settings` (PORT=3000 by default).
 */
import { CorsModule } from '@lib/cors';
import { controller, RequestContext, restRootModule, route } from '@lib/rest';

import { CredentialsController } from '../shared/credentials-controller.js';
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
