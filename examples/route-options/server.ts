/**
 * The spec's third row: CorsModule in `imports`, route-level options in the module's
 * `providersPerRou`, and one controller overriding them with its own.
 */
import { ProviderBuilder } from '@lib/core';
import { CorsModule, CorsOptions } from '@lib/cors';
import { controller, restRootModule, route } from '@lib/rest';

import { serveExample } from '../shared/serve.js';

@controller()
class ArticlesController {
  @route('GET', 'articles')
  list() {
    return [{ id: 1 }];
  }
}

// Field by field over the module's options: the origin is still https://example.com.
@controller({ providersPerRou: new ProviderBuilder().useValue<CorsOptions>(CorsOptions, { exposedHeaders: ['X-Total-Count'], maxAge: 600 }) })
class ReportsController {
  @route('GET', 'reports')
  list() {
    return [{ id: 1 }];
  }
}

@controller({ providersPerRou: new ProviderBuilder().useValue<CorsOptions>(CorsOptions, { origin: '*' }) })
class PublicController {
  @route('GET', 'public')
  read() {
    return { public: true };
  }
}

@restRootModule({
  imports: [CorsModule],
  controllers: [ArticlesController, ReportsController, PublicController],
  providersPerRou: new ProviderBuilder().useValue<CorsOptions>(CorsOptions, { origin: 'https://example.com' }),
})
class AppModule {}

await serveExample('route-options', AppModule, (url) => [
  `  module's route options:  curl -i ${url}/articles -H 'Origin: https://example.com'`,
  `  merged with controller:  curl -i -X OPTIONS ${url}/reports -H 'Origin: https://example.com' -H 'Access-Control-Request-Method: GET'`,
  `  controller override:     curl -i ${url}/public -H 'Origin: https://anyone.example'`,
]);
