// Ditsmod 3.0.0-alpha.3 (@ditsmod/core, @ditsmod/routing) + @ditsmod/cors (CORS by @ts-stack/cors), configured
// to the benchmark's policy. Ditsmod's decorators are plain functions, applied here by hand, so this stays plain
// JavaScript like the other peers: no reflect-metadata types are needed, since nothing is injected by type (the
// controller is context-scoped, `scope: 'ctx'`, Ditsmod's faster mode: its method receives the RequestContext).
import { Application, controller, rootModule } from '@ditsmod/core';
import { route, RoutingModule } from '@ditsmod/routing';
import { CorsModule } from '@ditsmod/cors';

import { ALLOWED_ORIGIN, announce, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from '../../build/bench/servers/policy.js';

class BenchController {
  handle(ctx) {
    ctx.setHeader('Content-Type', 'application/json; charset=utf-8').send(BODY);
  }
}
const descriptor = Object.getOwnPropertyDescriptor(BenchController.prototype, 'handle');
// Ditsmod's paths have no leading slash.
for (const path of EXTRA_PATHS) route('GET', path.slice(1))(BenchController.prototype, 'handle', descriptor);
for (const [method, path] of ROUTES) route(method, path.slice(1))(BenchController.prototype, 'handle', descriptor);
controller({ scope: 'ctx' })(BenchController);

class BenchModule {}
rootModule({
  imports: [RoutingModule, CorsModule.withParams({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE })],
  controllers: [BenchController],
})(BenchModule);

// 'error': CorsModule warns at start-up that its own module has no routes, which is harmless.
const app = await Application.create(BenchModule, { loggerConfig: { level: 'error' } });
app.server.listen(0, '127.0.0.1', () => announce(app.server.address().port));
