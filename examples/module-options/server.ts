/** The spec's second row: `CorsModule.withOpts({ origin: 'https://example.com' })`. */
import { CorsModule, CorsService } from '@lib/cors';
import { controller, RequestContext, restRootModule, route } from '@lib/rest';

import { serveExample } from '../shared/serve.js';

@controller()
class RootController {
  @route('GET')
  read() {
    return { ok: true };
  }

  @route('POST')
  create(ctx: RequestContext) {
    ctx.sendJson({ created: true }, 201);
  }

  @route('PATCH')
  update() {
    return { updated: true };
  }
}

@controller()
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

@restRootModule({
  imports: [CorsModule.withOpts({ origin: 'https://example.com' })],
  controllers: [RootController, CredentialsController],
})
class AppModule {}

await serveExample('module-options', AppModule, (url) => [
  `  allowed:      curl -i ${url}/ -H 'Origin: https://example.com'`,
  `  refused:      curl -i ${url}/ -H 'Origin: https://evil.example'`,
  `  preflight:    curl -i -X OPTIONS ${url}/ -H 'Origin: https://example.com' -H 'Access-Control-Request-Method: PATCH'`,
  `  credentials:  curl -i ${url}/credentials -H 'Origin: https://example.com'`,
]);
