/**
 * The route walk's detector probe (and the check that the walk files together walk every role at every
 * width), then the route groups that show operators more as an operator and the plain pages signed out, at
 * 375 and 1440 px. The walk, its checks and its records are e2e/support/walk.ts; the signed-in user's walks are
 * walk-user-375.e2e.ts and walk-user-1440.e2e.ts.
 */
import { walkSuite } from './support/walk';

walkSuite({ probe: true, walks: ['operator@375', 'operator@1440', 'signedOut@375', 'signedOut@1440'] });
