/**
 * Every route of the console's route table as a signed-in user at 375 px (a phone: touch, mobile viewport).
 * The walk, its checks and its records are e2e/support/walk.ts; its other parts are walk-user-1440.e2e.ts and
 * walk-operator.e2e.ts (three files so the e2e tier runs them side by side).
 */
import { walkSuite } from './support/walk';

walkSuite({ walks: ['user@375'] });
