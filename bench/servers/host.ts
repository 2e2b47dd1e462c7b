/** @lib/rest alone: the benchmark routes, each answering the same JSON body. */
import { RestApplication, restRootModule } from '@lib/rest';

import { PostsController, scaleControllers, UsersController } from './controllers.js';
import { announce } from './policy.js';

@restRootModule({ controllers: [...scaleControllers(), UsersController, PostsController] })
class BenchModule {}

const app = await RestApplication.create(BenchModule);
announce((await app.listen(0, '127.0.0.1')).port);
