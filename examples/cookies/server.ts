/** The spec's fourth row: CorsService.setCookie with an explicit origin list, so credentials work. */
import { CorsModule, CorsService } from '@lib/cors';
import { controller, RequestContext, restRootModule, route } from '@lib/rest';

import { serveExample } from '../shared/serve.js';

@controller()
class SessionController {
  constructor(
    private readonly cors: CorsService,
    private readonly ctx: RequestContext,
  ) {}

  @route('POST', 'login')
  login() {
    this.cors.setCookie('session', 'abc123', { sameSite: 'lax' });
    this.cors.setCookie('theme', 'dark', { httpOnly: false, maxAge: 3600 });
    this.ctx.sendJson({ loggedIn: true });
  }

  @route('GET', 'me')
  me() {
    this.ctx.sendJson({ cookie: this.ctx.rawReq.headers.cookie ?? null });
  }
}

@restRootModule({
  imports: [CorsModule.withOpts({ origin: ['https://app.example.com', 'http://127.0.0.1:5173'], allowCredentials: true })],
  controllers: [SessionController],
})
class AppModule {}

await serveExample('cookies', AppModule, (url) => [
  `  log in:      curl -i -X POST ${url}/login -H 'Origin: https://app.example.com'`,
  `  refused:     curl -i -X POST ${url}/login -H 'Origin: https://evil.example'`,
  `  preflight:   curl -i -X OPTIONS ${url}/me -H 'Origin: https://app.example.com' -H 'Access-Control-Request-Method: GET'`,
]);
