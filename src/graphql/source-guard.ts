/**
 * Checks a /graphql request's document before Apollo parses it: Apollo runs graphql-js's `parse`
 * itself (with our token limit as a parse option) and has no hook that may refuse a request
 * before parsing, so the input-depth limit (limits.ts, inputDepthError) runs here, as Express
 * middleware in front of Apollo's. The answer is the one Apollo gives for the other limits: 400
 * with `{ errors: [{ message, extensions: { code, limit } }] }`.
 */
import type { NextFunction, Request, Response } from 'express';
import { inputDepthError } from './limits';

export function graphqlSourceGuard(req: Request, res: Response, next: NextFunction): void {
  const body = req.body as { query?: unknown } | undefined;
  const query = req.method === 'GET' ? req.query.query : body?.query;
  const error = typeof query === 'string' ? inputDepthError(query) : undefined;
  if (!error) return next();
  res.status(400).json({ errors: [{ message: error.message, extensions: error.extensions }] });
}
