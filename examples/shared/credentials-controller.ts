import { CorsService } from '@lib/cors';
import { controller, RequestContext, route } from '@lib/rest';

/** `GET /credentials`: the spec's credentialed request, a controller calling CorsService.setCookie. */
@controller()
export class CredentialsController {
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
