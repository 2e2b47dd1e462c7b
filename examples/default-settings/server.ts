/**
 * The spec's first row: CorsModule in `imports`, no options. `npm start`, or
 * `npm run example -- default-settings` (PORT=3000 by default).
 */
import { ProviderBuilder } from '@lib/core';
import { CorsModule, CorsOptions, CorsService } from '@lib/cors';
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

/**
 * The spec's credentialed request: a controller taking CorsService to set a cookie. Browsers
 * refuse credentials under the default '*', so this one controller names the origins that may
 * send them (route-level options); the answer then echoes the asking origin with
 * Access-Control-Allow-Credentials: true. Every other route keeps the defaults.
 */
@controller({
  providersPerRou: new ProviderBuilder().useValue<CorsOptions>(CorsOptions, { origin: ['https://example.com', 'https://app.example.com'] }),
})
class CredentialsController {
  constructor(
    private readonly cors: CorsService,
    private readonly ctx: RequestContext,
  ) {}

  @route('GET', 'credentials')
  credentials() {
    this.cors.setCookie('one', 'value for one');
    this.ctx.send('cookie set');
  }
}

@restRootModule({ imports: [CorsModule], controllers: [UsersController, PostsController, CredentialsController] })
class AppModule {}

await serveExample('default-settings', AppModule, (url) => [
  "The five request kinds of the specification, under the default settings (every origin may read: '*'):",
  `  plain OPTIONS:          curl -i -X OPTIONS ${url}/users`,
  `  OPTIONS CORS request:   curl -i -X OPTIONS ${url}/users -H 'Origin: https://example.com'`,
  `  simple CORS request:    curl -i ${url}/users -H 'Origin: https://example.com'`,
  `  preflight:              curl -i -X OPTIONS ${url}/posts -H 'Origin: https://example.com' -H 'Access-Control-Request-Method: POST' -H 'Access-Control-Request-Headers: content-type, x-request-id'`,
  `  with credentials:       curl -i ${url}/credentials -H 'Origin: https://example.com'`,
  "                          (echoes the origin, with Access-Control-Allow-Credentials: true: browsers refuse credentials under '*',",
  '                          so the controller of /credentials names the origins that may send them)',
]);
