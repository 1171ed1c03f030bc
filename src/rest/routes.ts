/** Every documented REST path, module by module. */
import { authRoutes } from '../modules/auth/auth.rest';
import { RestRoute } from './route';

export const restRoutes: RestRoute[] = [...authRoutes];
