/**
 * The host on its own: `npm run example -- hello` (PORT=3000 by default).
 * Two controllers; one receives RequestContext and a service through its constructor.
 */
import { injectable } from '@lib/core';
import { controller, RequestContext, RestApplication, restRootModule, route } from '@lib/rest';

@injectable()
class GreetingService {
  greet(name: string): string {
    return `Hello, ${name}!`;
  }
}

@controller()
class HelloController {
  constructor(
    private readonly ctx: RequestContext,
    private readonly greetings: GreetingService,
  ) {}

  @route('GET', 'hello/:name')
  hello() {
    this.ctx.send(this.greetings.greet(this.ctx.params.name ?? 'world'));
  }

  @route('GET')
  index() {
    return 'Try /hello/Ada, /health or /hello/Ada?json=1';
  }
}

@controller()
class HealthController {
  @route('GET', 'health')
  health(ctx: RequestContext) {
    ctx.sendJson({ ok: true, uptime: Math.round(process.uptime()) });
  }
}

@restRootModule({ controllers: [HelloController, HealthController], providersPerApp: [GreetingService] })
class AppModule {}

const app = await RestApplication.create(AppModule);
const { port } = await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
console.log(`hello example listening on http://127.0.0.1:${port}`);
console.log(
  `  curl -i http://127.0.0.1:${port}/hello/Ada\n  curl -i http://127.0.0.1:${port}/health\n  curl -i -X POST http://127.0.0.1:${port}/health   (405 with Allow)`,
);
