/**
 * Access tokens: JWT signed with one pinned algorithm, issuer and audience checked, a `jti`
 * per token so that logout can revoke exactly one token until its natural expiry.
 */
import { randomUUID } from 'node:crypto';
import jwt, { JwtPayload } from 'jsonwebtoken';
import { EntityManager } from '@mikro-orm/postgresql';
import { Config } from '../../config';
import { AppError, unauthenticated } from '../../common/errors';
import { RevokedToken } from './revoked-token.entity';

const ALGORITHM = 'HS256';

/** Who is calling, as proven by a valid, unrevoked token. */
export interface Viewer {
  userId: number;
  tokenId: string;
  expiresAt: Date;
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

export class TokenService {
  constructor(private readonly jwtConfig: Config['jwt']) {}

  issue(userId: number): IssuedToken {
    const accessToken = jwt.sign({}, this.jwtConfig.secret, {
      algorithm: ALGORITHM,
      expiresIn: this.jwtConfig.ttlSeconds,
      issuer: this.jwtConfig.issuer,
      audience: this.jwtConfig.audience,
      subject: String(userId),
      jwtid: randomUUID(),
    });
    return { accessToken, tokenType: 'Bearer', expiresIn: this.jwtConfig.ttlSeconds };
  }

  /** The viewer behind an `Authorization` header value, or an UNAUTHENTICATED AppError. */
  async authenticate(em: EntityManager, authorization: string | undefined): Promise<Viewer> {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
    if (!match) throw unauthenticated();
    const viewer = this.decode(match[1]);
    const revoked = await em.count(RevokedToken, { jti: viewer.tokenId });
    if (revoked > 0) throw unauthenticated('The token has been revoked.');
    return viewer;
  }

  async revoke(em: EntityManager, viewer: Viewer): Promise<void> {
    await em.execute(
      `insert into revoked_tokens (jti, expires_at) values (?, ?) on conflict (jti) do nothing`,
      [viewer.tokenId, viewer.expiresAt],
    );
  }

  private decode(token: string): Viewer {
    let payload: JwtPayload;
    try {
      payload = jwt.verify(token, this.jwtConfig.secret, {
        algorithms: [ALGORITHM],
        issuer: this.jwtConfig.issuer,
        audience: this.jwtConfig.audience,
      }) as JwtPayload;
    } catch (error) {
      const expired = error instanceof jwt.TokenExpiredError;
      throw unauthenticated(expired ? 'The token has expired.' : 'The token is invalid.');
    }
    const userId = Number(payload.sub);
    if (!Number.isSafeInteger(userId) || userId <= 0 || !payload.jti || !payload.exp) {
      throw unauthenticated('The token is invalid.');
    }
    return { userId, tokenId: payload.jti, expiresAt: new Date(payload.exp * 1000) };
  }
}

export function requireViewer(viewer: Viewer | null, authError?: AppError): Viewer {
  if (viewer) return viewer;
  throw authError ?? unauthenticated();
}
