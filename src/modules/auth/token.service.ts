/**
 * Access tokens: JWT signed with one pinned algorithm, issuer and audience checked, a `jti`
 * per token so that logout can revoke exactly one token until its natural expiry.
 */
import { createSecretKey, KeyObject, randomUUID } from 'node:crypto';
import jwt, { JwtPayload } from 'jsonwebtoken';
import { EntityManager } from '@mikro-orm/postgresql';
import { Config } from '../../config';
import { Context, Viewer } from '../../context';
import { executePrepared } from '../../common/entity-manager';
import { unauthenticated } from '../../common/errors';

const ALGORITHM = 'HS256';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  /** The token's jti: the device it was issued to remembers it, so that its logout finds the device. */
  tokenId: string;
}

/**
 * The signing secret as a key, made once per configuration: given the string, jsonwebtoken tries
 * to parse it as a public key (and fails) on every verification before making a secret key of it.
 */
const keys = new WeakMap<Config['jwt'], KeyObject>();
function keyOf(jwtConfig: Config['jwt']): KeyObject {
  let key = keys.get(jwtConfig);
  if (!key) keys.set(jwtConfig, (key = createSecretKey(Buffer.from(jwtConfig.secret, 'utf8'))));
  return key;
}

export function issueToken(ctx: Context, userId: number): IssuedToken {
  const jwtConfig = ctx.services.config.jwt;
  const tokenId = randomUUID();
  const accessToken = jwt.sign({}, keyOf(jwtConfig), {
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
export async function authenticate(
  emOf: () => EntityManager,
  jwtConfig: Config['jwt'],
  authorization: string | undefined,
  revocations?: Revocations,
  verified?: VerifiedTokens,
): Promise<Viewer> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
  if (!match) throw unauthenticated();
  const viewer = verified ? verified.viewer(match[1], () => decode(jwtConfig, match[1])) : decode(jwtConfig, match[1]);
  const revoked = revocations ? await revocations.isRevoked(emOf, viewer.tokenId) : await countRevoked(emOf(), viewer.tokenId);
  if (revoked) throw unauthenticated('The token has been revoked.');
  return viewer;
}

/**
 * Whether the token is revoked: one named prepared statement on the read pool (executePrepared),
 * not the ORM's count (its query builder cost ~10 % of a checkout's CPU when every request is a
 * customer's first in `recheckMs`: docs/perf/2026-11-26-checkouts.md).
 */
const countRevoked = async (em: EntityManager, jti: string) =>
  (await executePrepared<{ revoked: boolean }>(em, `select exists (select 1 from revoked_tokens where jti = ?::uuid) as revoked`, [jti]))[0]
    .revoked;

/**
 * Which tokens this instance found unrevoked lately (docs/decisions.md "The signed-in floor"): a
 * token is looked up in `revoked_tokens` once per `recheckMs`, not on every request. A logout is
 * refused at once on its instance (`heardRevoked`) and on every other through the bus
 * (tokenEvents); a notice lost on the bus holds on another instance for at most `recheckMs`.
 */
export class Revocations {
  /** jti -> when the lookup that found it unrevoked started (insertion order is time order). */
  private readonly clear = new Map<string, number>();
  /** jti -> when it was heard revoked; kept `recheckMs`, then `revoked_tokens` says it. */
  private readonly revoked = new Map<string, number>();

  constructor(
    private readonly recheckMs: number,
    private readonly maxEntries = 200_000,
  ) {}

  /** `emOf` is called only for a lookup (the fork is not made when the answer is known). */
  async isRevoked(emOf: () => EntityManager, jti: string): Promise<boolean> {
    const started = Date.now();
    if (this.revoked.has(jti)) return true;
    const checked = this.clear.get(jti);
    if (checked !== undefined && started - checked < this.recheckMs) return false;
    const revoked = await countRevoked(emOf(), jti);
    if (revoked) this.heardRevoked(jti);
    else if (this.recheckMs > 0 && !this.revoked.has(jti)) {
      this.clear.delete(jti); // re-inserted at the end: the oldest entries stay first
      this.prune(started);
      if (this.clear.size < this.maxEntries) this.clear.set(jti, started);
    }
    return revoked;
  }

  heardRevoked(jti: string): void {
    const now = Date.now();
    this.clear.delete(jti);
    this.revoked.delete(jti);
    this.prune(now);
    this.revoked.set(jti, now);
  }

  private prune(now: number): void {
    for (const map of [this.clear, this.revoked]) {
      for (const [jti, at] of map) {
        if (now - at < this.recheckMs) break;
        map.delete(jti);
      }
    }
  }
}

/**
 * Tokens whose signature and claims this instance has verified: the same bytes are not verified
 * again (jsonwebtoken's HMAC and claim checks were ~7 % of a driver position's CPU) until the token
 * expires. Only the verification is kept: the revocation is still asked of Revocations on every
 * request. At most `maxEntries` tokens are kept; the oldest kept is forgotten first.
 */
export class VerifiedTokens {
  private readonly known = new Map<string, Viewer>();

  constructor(private readonly maxEntries = 50_000) {}

  viewer(token: string, verify: () => Viewer): Viewer {
    const known = this.known.get(token);
    // As jsonwebtoken decides: expired once its second has come.
    if (known && Math.floor(Date.now() / 1000) < known.expiresAt.getTime() / 1000) return known;
    if (known) this.known.delete(token);
    const viewer = Object.freeze(verify()); // throws for a token refused: nothing is kept of it. Shared by the token's requests.
    if (this.known.size >= this.maxEntries) this.known.delete(this.known.keys().next().value!);
    this.known.set(token, viewer);
    return viewer;
  }

  get size(): number {
    return this.known.size;
  }
}

/** Revokes exactly the token this request carries. */
export async function revokeToken(ctx: Context, viewer: Viewer): Promise<void> {
  await ctx.em.execute(`insert into revoked_tokens (jti, expires_at) values (?, ?) on conflict (jti) do nothing`, [
    viewer.tokenId,
    viewer.expiresAt,
  ]);
  ctx.services.tokenRevoked(viewer.tokenId);
}

function decode(jwtConfig: Config['jwt'], token: string): Viewer {
  let payload: JwtPayload;
  try {
    payload = jwt.verify(token, keyOf(jwtConfig), {
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
