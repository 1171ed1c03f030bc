/**
 * The twin of `POST /api/v1/driver/location` (issue 26): what a hand-written handler on `pg`
 * does for a position, the limit of the one-UPDATE-per-position design: the token checked as
 * the service checks it (signature, issuer, audience, then its revocation counted), one
 * `update drivers ... returning`, the service's JSON by hand.
 */
import express from 'express';
import jwt, { JwtPayload } from 'jsonwebtoken';
import { Pool } from 'pg';
import { roundCoordinate } from '../../src/common/coordinate-field';
import { loadConfig } from '../../src/config';

export function positionsRoute(app: express.Express, pool: Pool): void {
  const { jwt: jwtConfig } = loadConfig(process.env);
  app.post('/api/v1/driver/location', express.json(), async (req, res, next) => {
    try {
      const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const claims = jwt.verify(token, jwtConfig.secret, {
        algorithms: ['HS256'],
        issuer: jwtConfig.issuer,
        audience: jwtConfig.audience,
      }) as JwtPayload;
      const revoked = await pool.query<{ count: string }>(`select count(*) as count from revoked_tokens where jti = $1`, [claims.jti]);
      if (Number(revoked.rows[0].count) > 0) throw new Error('revoked');
      const { latitude, longitude } = req.body as { latitude: number; longitude: number };
      const { rows } = await pool.query<{ id: number; is_online: boolean; latitude: number; longitude: number }>(
        `update drivers set latitude = $1, longitude = $2, location_updated_at = now() where user_id = $3
         returning id, is_online, latitude, longitude`,
        [latitude, longitude, Number(claims.sub)],
      );
      const [row] = rows;
      res.json({
        success: true,
        data: { id: row.id, is_online: row.is_online, latitude: roundCoordinate(row.latitude), longitude: roundCoordinate(row.longitude) },
      });
    } catch (error) {
      next(error);
    }
  });
}
