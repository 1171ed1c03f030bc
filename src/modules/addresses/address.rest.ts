/** Saved delivery addresses under /api/v1/customer (docs/decisions.md). */
import { RestRoute } from '../../rest/route';

export const ADDRESS = `
  fragment RestAddress on UserAddress {
    id label line1 line2 city latitude longitude instructions created_at: createdAt
  }`;

const FIELDS = `$label: String, $line1: String, $line2: String, $city: String, $latitude: Float, $longitude: Float, $instructions: String`;
const INPUT = `label: $label, line1: $line1, line2: $line2, city: $city, latitude: $latitude, longitude: $longitude, instructions: $instructions`;

export const addressRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/customer/addresses',
    document: `query Addresses { addresses { ...RestAddress } } ${ADDRESS}`,
  },
  {
    method: 'POST',
    path: '/api/v1/customer/addresses',
    status: 201,
    envelope: 'message',
    document: `mutation CreateAddress($label: String!, $line1: String!, $line2: String, $city: String, $latitude: Float!, $longitude: Float!, $instructions: String) {
      createAddress(input: { ${INPUT} }) { message data: address { ...RestAddress } }
    } ${ADDRESS}`,
  },
  {
    method: 'GET',
    path: '/api/v1/customer/addresses/:id',
    document: `query Address($id: Int!) { address(id: $id) { ...RestAddress } } ${ADDRESS}`,
  },
  {
    method: 'PUT',
    path: '/api/v1/customer/addresses/:id',
    envelope: 'message',
    document: `mutation UpdateAddress($id: Int!, ${FIELDS}) {
      updateAddress(id: $id, input: { ${INPUT} }) { message data: address { ...RestAddress } }
    } ${ADDRESS}`,
  },
  {
    method: 'DELETE',
    path: '/api/v1/customer/addresses/:id',
    envelope: 'message',
    document: `mutation DeleteAddress($id: Int!) { deleteAddress(id: $id) { message } }`,
  },
];
