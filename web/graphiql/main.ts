/**
 * GraphiQL for this service, bundled from npm (no CDN): the docs explorer, the Headers editor
 * for `Authorization: Bearer <token>`, and subscriptions over graphql-ws on the same path.
 */
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { fetcher } from './fetcher';

const DEFAULT_QUERY = `# GraphQL explorer of the delivery platform.
#
# Sign in: run sendOtp, then verifyOtp with the code (development: +15550001001 or
# +15550000001 with 123456), and put the access token in Headers below:
#   { "Authorization": "Bearer <accessToken>" }
# The same header signs the websocket in, so subscriptions work too:
#   subscription { orderUpdates(orderId: 1) { seq type status latitude longitude at } }

mutation SendCode {
  sendOtp(input: { phoneNumber: "+15550001001" }) { message }
}

mutation SignIn {
  verifyOtp(input: { phoneNumber: "+15550001001", verificationCode: "123456" }) {
    session { accessToken user { firstName lastName } }
  }
}

query Me {
  me { id firstName lastName phoneNumber }
}
`;

createRoot(document.getElementById('graphiql')!).render(
  createElement(GraphiQL, {
    fetcher,
    defaultQuery: DEFAULT_QUERY,
    defaultHeaders: '{\n  "Authorization": ""\n}',
    shouldPersistHeaders: true,
    defaultEditorToolsVisibility: 'headers',
  }),
);
