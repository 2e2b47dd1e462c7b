/**
 * The full stack as module.ts, its routes spread over 10 feature modules that each import
 * CorsModule.withOpts() with the same policy: CorsModule keeps one engine per application, so a
 * request should cost what it costs with one importing module.
 *
 * A module adds the OPTIONS twins of its own paths, so two modules cannot share a path: ROUTES'
 * four paths make four modules, and six more each hold one GET route on a path of its own that
 * the scenarios never request. `/users/:id`, the path the scenarios hit, is in the last module
 * imported: with an engine per module, its requests would pass through all ten.
 */
import { CorsModule } from '@lib/cors';
import { RestApplication, restModule, restRootModule } from '@lib/rest';

import { controllerFor, scaleControllers } from './controllers.js';
import { ALLOWED_ORIGIN, announce, MAX_AGE, ROUTES } from './policy.js';

const FEATURE_PATHS = ['/orders', '/products', '/invoices', '/teams', '/reports', '/settings'];
const HIT = '/users/:id';

const byPath = new Map<string, [method: string, path: string][]>();
for (const [method, path] of ROUTES) byPath.set(path, [...(byPath.get(path) ?? []), [method, path]]);
const features = [
  ...FEATURE_PATHS.map((path) => [['GET', path] as [string, string]]),
  ...[...byPath.keys()].filter((path) => path !== HIT).map((path) => byPath.get(path)!),
  byPath.get(HIT)!,
];
if (features.length !== 10) throw new Error(`ten-modules.ts builds ${features.length} feature modules, not 10`);

const modules = features.map((routes, index) => {
  // The scale case's extra routes (none unless EXTRA_ROUTES is set) come first, as in module.ts.
  const controllers = [...(index === 0 ? scaleControllers() : []), controllerFor(`Feature${index + 1}Controller`, routes)];
  const name = `Feature${index + 1}Module`;
  const featureModule = { [name]: class {} }[name]!;
  restModule({ imports: [CorsModule.withOpts({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE })], controllers })(featureModule);
  return featureModule;
});

@restRootModule({ imports: modules })
class BenchModule {}

const app = await RestApplication.create(BenchModule);
announce((await app.listen(0, '127.0.0.1')).port);
