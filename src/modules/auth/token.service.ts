/**
 * Access tokens: JWT signed with one pinned algorithm, issuer and audience checked, a `jti`
 * per token so that logout can revoke exactly one token until its natural expiry.
 */
import { randomUUID } from 'node:crypto';
import jwt, { JwtPayload } from 'jsonwebtoken';
import { EntityManager } from '@mikro-orm/postgresql';
import { Config } from '../../config';
import { Context, Viewer } from '../../context';
import { unauthenticated } from '../../common/errors';
import { RevokedToken } from './revoked-token.entity';

const ALGORITHM = 'HS256';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  /** The token's jti: the device it was issued to remembers it, so that its logout finds the device. */
  tokenId: string;
}

export function issueToken(ctx: Context, userId: number): IssuedToken {
  const jwtConfig = ctx.services.config.jwt;
  const tokenId = randomUUID();
  const accessToken = jwt.sign({}, jwtConfig.secret, {
    algorithm: ALGORITHM,
    expiresIn: jwtConfig.ttlSeconds,
    issuer: jwtConfig.issuer,
    audience: jwtConfig.audience,
    subject: String(userId),
    jwtid: tokenId,
  });
  return { accessToken, tokenType: 'Bearer', expiresIn: jwtConfig.ttlSeconds, tokenId };
}

/**
 * The viewer behind an `Authorization` header value, or an UNAUTHENTICATED AppError. It takes
 * the parts it needs, not a context: it runs while the request context is being built.
 */
export async function authenticate(em: EntityManager, jwtConfig: Config['jwt'], authorization: string | undefined): Promise<Viewer> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
  if (!match) throw unauthenticated();
  const viewer = decode(jwtConfig, match[1]);
  const revoked = await em.count(RevokedToken, { jti: viewer.tokenId });
  if (revoked > 0) throw unauthenticated('The token has been revoked.');
  return viewer;
}

/** Revokes exactly the token this request carries. */
export async function revokeToken(ctx: Context, viewer: Viewer): Promise<void> {
  await ctx.em.execute(`insert into revoked_tokens (jti, expires_at) values (?, ?) on conflict (jti) do nothing`, [
    viewer.tokenId,
    viewer.expiresAt,
  ]);
}

function decode(jwtConfig: Config['jwt'], token: string): Viewer {
  let payload: JwtPayload;
  try {
    payload = jwt.verify(token, jwtConfig.secret, {
      algorithms: [ALGORITHM],
      issuer: jwtConfig.issuer,
      audience: jwtConfig.audience,
    }) as JwtPayload;
  } catch (error) {
    const expired = error instanceof jwt.TokenExpiredError;
    throw unauthenticated(expired ? 'The token has expired.' : 'The token is invalid.');
  }
  // Every claim is checked before any query uses it: a validly signed token with a malformed
  // jti (not the UUID we issue) would otherwise fail the revocation lookup as a 500.
  const userId = typeof payload.sub === 'string' && /^[1-9]\d{0,15}$/.test(payload.sub) ? Number(payload.sub) : NaN;
  if (!Number.isSafeInteger(userId) || typeof payload.jti !== 'string' || !UUID.test(payload.jti) || typeof payload.exp !== 'number') {
    throw unauthenticated('The token is invalid.');
  }
  return { userId, tokenId: payload.jti, expiresAt: new Date(payload.exp * 1000) };
}
