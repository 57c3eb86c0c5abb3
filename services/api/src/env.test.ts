import { describeProductionConnections } from '../../../test/support/connection-defaults';
import { loadEnv } from './env';

describeProductionConnections('the API', loadEnv);
