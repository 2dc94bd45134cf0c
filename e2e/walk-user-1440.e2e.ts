/**
 * Every route of the console's route table as a signed-in user at 1440 px. The walk, its checks and its
 * records are e2e/support/walk.ts; its other parts are walk-user-375.e2e.ts and walk-operator.e2e.ts.
 */
import { walkSuite } from './support/walk';

walkSuite({ walks: ['user@1440'] });
