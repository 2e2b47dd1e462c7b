/** Issue 48 on a real PostgreSQL, through pg and postgres.js (the scenarios: helpers/origin-store-scenarios.ts). */
import t from 'tap';

import { CLIENTS, storeScenarios } from '../../helpers/origin-store-scenarios.js';
import { startPostgres } from '../../helpers/stores.js';

storeScenarios(
  t,
  CLIENTS.filter((client) => client.start === startPostgres),
);
