/**
 * POST /api/v1/payments/webhooks/:provider — provider events over HTTP. Mounted before the JSON
 * body parser: the signature is computed over the exact bytes sent. A bad signature is 400 and
 * changes nothing; an authentic event is answered 200 once it is recorded (applied, ignored as
 * a replay, or refused for a wrong amount), so the provider stops re-sending it; a failure of
 * ours is 500 and the provider re-sends later.
 */
import express, { Request, Response, Router } from 'express';
import { routeNotFound } from '../../common/errors';
import { ProviderError } from '../../common/payment-provider';
import type { Logger } from '../../common/logger';
import type { Orm } from '../../common/entity-manager';
import type { Services } from '../../context';
import { applyProviderEvent } from './payment-events.service';

export const WEBHOOK_PATH = '/api/v1/payments/webhooks/:provider';

export function paymentWebhookRouter(orm: Orm, services: Services, logger: Logger, bodyLimit: string): Router {
  const router = Router();
  const log = logger.child({ component: 'payment-webhook' });
  router.post(WEBHOOK_PATH, express.raw({ type: () => true, limit: bodyLimit }), async (req: Request, res: Response) => {
    const provider = services.payments.get(String(req.params.provider));
    if (!provider?.parseEvent) {
      const missing = routeNotFound(req.method, req.path);
      res.status(missing.status).json({ message: missing.message });
      return;
    }
    let event;
    try {
      event = provider.parseEvent(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), (name) => req.get(name));
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      const malformed = error.code === 'malformed_event';
      log.warn(
        { provider: provider.name, err: error },
        malformed ? 'payment webhook refused: malformed event' : 'payment webhook refused: bad signature',
      );
      res.status(400).json({ message: malformed ? 'The webhook event is malformed.' : 'The webhook signature is not valid.' });
      return;
    }
    try {
      const outcome = await applyProviderEvent(orm.em.fork(), { ...services, logger: log }, provider.name, event);
      res.json({ received: true, outcome });
    } catch (error) {
      log.error({ err: error, eventId: event.id }, 'payment webhook failed');
      res.status(500).json({ message: 'Server Error' });
    }
  });
  return router;
}
