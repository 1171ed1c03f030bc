import { AuthCheckerFn } from 'type-graphql';
import { requireViewer } from '../modules/auth/token.service';
import { Context } from '../context';

/** `@Authorized()` means "a valid token": the refusal carries why (expired, revoked...). */
export const authChecker: AuthCheckerFn<Context> = ({ context }) => {
  requireViewer(context.viewer, context.authError);
  return true;
};
