/** Web Push subscriptions over REST: the same rows under the customer's and the store's paths. */
import { RestRoute } from '../../rest/route';

const SUBSCRIPTION = `fragment RestWebPushSubscription on WebPushSubscription { id endpoint created_at: createdAt }`;

export const webPushRoutes: RestRoute[] = ['/api/v1/customer', '/api/v1/store'].flatMap((base): RestRoute[] => [
  {
    method: 'GET',
    path: `${base}/web-push/public-key`,
    document: `query WebPushPublicKey { webPushPublicKey }`,
  },
  {
    method: 'POST',
    path: `${base}/web-push/subscriptions`,
    status: 201,
    envelope: 'message',
    bodyVariable: 'input',
    strictBody: true,
    document: `mutation SaveWebPushSubscription($input: WebPushSubscriptionInput!) {
      saveWebPushSubscription(input: $input) { message data: subscription { ...RestWebPushSubscription } }
    } ${SUBSCRIPTION}`,
  },
  {
    method: 'DELETE',
    path: `${base}/web-push/subscriptions`,
    envelope: 'message',
    document: `mutation DeleteWebPushSubscription($endpoint: String!) { deleteWebPushSubscription(endpoint: $endpoint) { message } }`,
  },
]);
