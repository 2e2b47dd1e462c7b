/** The full stack: @lib/rest with CorsModule, the benchmark routes and policy. */
import { CorsModule } from '@lib/cors';
import { RestApplication, restRootModule } from '@lib/rest';

import { PostsController, scaleControllers, UsersController } from './controllers.js';
import { ALLOWED_ORIGIN, announce, MAX_AGE } from './policy.js';

@restRootModule({
  imports: [CorsModule.withOpts({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE })],
  controllers: [...scaleControllers(), UsersController, PostsController],
})
class BenchModule {}

const app = await RestApplication.create(BenchModule);
announce((await app.listen(0, '127.0.0.1')).port);
