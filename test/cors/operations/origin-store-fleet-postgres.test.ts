/**
 * Issue 48: four instances of examples/origin-store-postgres on one PostgreSQL, under load, while origins are
 * granted and revoked and the store is killed with SIGKILL and started again (helpers/fleet.ts).
 */
import t from 'tap';

import { fleetScenario } from '../../helpers/fleet.js';

t.test('four instances on one PostgreSQL: every answer within the bound of the store, convergence measured, nothing lost to a kill -9', (t) =>
  fleetScenario(t, 'postgres'),
);
