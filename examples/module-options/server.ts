/** The spec's second row: `CorsModule.withOpts({ origin: 'https://example.com' })`. */
import { CorsModule } from '@lib/cors';
import { controller, RequestContext, restRootModule, route } from '@lib/rest';

import { CredentialsController } from '../shared/credentials-controller.js';
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
